import { inputJsonSchema, schemasOf, type WorkflowDefinition } from '@cyclone/core';
import type { ApiDescription } from '../http/api-description.js';

/** The component `POST /api/runs`'s body is described by (its `meta` id in schemas.ts). */
const SubmitRequest = 'SubmitRunRequest';

/**
 * The component name of a workflow's input: `WorkflowInput.<name>`, with the `:` workflow names
 * may hold (component names may not) as `_`; a name that collides after that gains `_2`, `_3`.
 */
function componentNames(names: readonly string[]): Map<string, string> {
  const taken = new Set<string>();
  const byName = new Map<string, string>();
  for (const name of names) {
    const base = `WorkflowInput.${name.replaceAll(':', '_')}`;
    let candidate = base;
    for (let n = 2; taken.has(candidate); n++) candidate = `${base}_${n}`;
    taken.add(candidate);
    byName.set(name, candidate);
  }
  return byName;
}

/** A JSON Schema as a component: without `$schema`, which only a document's root may carry. */
function asComponent(schema: Record<string, unknown>, workflow: string): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return { description: `The input of workflow ${workflow}`, ...rest };
}

/**
 * The API description with each given workflow's input JSON Schema, where its schema library
 * describes one (zod 4 does, through Standard JSON Schema), as `components.schemas` entry
 * `WorkflowInput.<name>`; `POST /api/runs`'s body becomes a `oneOf`: for each such workflow, the
 * request with `workflow` that name and `input` its schema, and the plain request for any other
 * name. A server given no such workflow answers the description unchanged.
 */
export function withWorkflowInputs(
  description: ApiDescription,
  workflows: ReadonlyMap<string, WorkflowDefinition>,
): ApiDescription {
  const described: [string, Record<string, unknown>][] = [];
  for (const [name, definition] of workflows) {
    const schema = schemasOf(definition)?.input;
    const json = schema === undefined ? undefined : inputJsonSchema(schema);
    if (json !== undefined) described.push([name, json]);
  }
  if (described.length === 0) return description;
  const names = componentNames(described.map(([name]) => name));
  const components = { ...description.components?.schemas };
  const ref = (component: string) => ({ $ref: `#/components/schemas/${component}` });
  const branches: Record<string, unknown>[] = described.map(([name, json]) => {
    const component = names.get(name)!;
    components[component] = asComponent(json, name);
    return {
      title: `A run of ${name}`,
      allOf: [ref(SubmitRequest)],
      properties: { workflow: { const: name }, input: ref(component) },
    };
  });
  branches.push({
    title: 'A run of any other workflow',
    allOf: [ref(SubmitRequest)],
    properties: { workflow: { not: { enum: described.map(([name]) => name) } } },
  });
  const submit = description.paths?.['/api/runs']?.post;
  const body = submit?.requestBody;
  if (!submit || !body || !('content' in body)) return description;
  return {
    ...description,
    components: { ...description.components, schemas: components },
    paths: {
      ...description.paths,
      '/api/runs': {
        ...description.paths!['/api/runs'],
        post: {
          ...submit,
          requestBody: {
            ...body,
            content: { 'application/json': { schema: { oneOf: branches } } },
          },
        },
      },
    },
  };
}
