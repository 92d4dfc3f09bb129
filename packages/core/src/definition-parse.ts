import { z } from 'zod';
import { nodePaths } from './definition-graph.js';
import { expected, nodeTypeMessage } from './definition-messages.js';
import { issuesFromZod } from './definition-issues.js';
import { definitionIssues } from './definition-rules.js';
import { envelopeShape, nodeDefinitionSchemas } from './definition-schema.js';
import {
  type NodeDefinition,
  WORKFLOW_NODE_TYPES,
  type WorkflowDefinition,
  type WorkflowNodeType,
} from './definition-types.js';
import { attachSchemas, type DefinitionSchemas } from './definition-schemas.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import { joinPath } from './json-payload.js';
import { stableHash } from './stable-hash.js';

// ---------------------------------------------------------------------------------------------
// Hash, freezing, parsing.

/** The hash a definition must carry: {@link stableHash} of everything but its `hash` field. */
export function definitionHash(
  definition: Omit<WorkflowDefinition, 'hash'> | WorkflowDefinition,
): string {
  const { hash: _ignored, ...content } = definition as WorkflowDefinition;
  return stableHash(content);
}

/**
 * Adds the hash and deep-freezes. It does not validate: use the builder or
 * {@link parseWorkflowDefinition} to obtain definitions.
 *
 * @internal
 */
export function sealDefinition(
  draft: Omit<WorkflowDefinition, 'hash'>,
  schemas?: DefinitionSchemas,
): WorkflowDefinition {
  const definition: WorkflowDefinition = {
    format: draft.format,
    name: draft.name,
    hash: definitionHash(draft),
    ...(draft.defaults === undefined ? {} : { defaults: draft.defaults }),
    nodes: draft.nodes,
  };
  // Before freezing, and out of the hash: schemas are code, not part of the stored definition.
  if (schemas !== undefined) attachSchemas(definition, schemas);
  return deepFreeze(definition);
}

/**
 * Checks JSON that claims to be a built workflow definition (from a database, a queue or another
 * service) and returns it as a deep-frozen {@link WorkflowDefinition}. Checks the shape of every
 * node, the graph rules (unique names, known dependencies, no cycles, fan-out sources) and that the
 * hash matches the content.
 *
 * @throws ValidationError with subject `workflow definition "<name>"` listing every problem found
 */
export function parseWorkflowDefinition(json: unknown): WorkflowDefinition {
  const record = isRecord(json) ? json : undefined;
  const name = typeof record?.name === 'string' ? record.name : undefined;
  const subject = name === undefined ? 'workflow definition' : `workflow definition "${name}"`;
  const envelopeSchema = z.strictObject(
    {
      ...envelopeShape,
      nodes: z.array(z.unknown(), { error: expected('expected an array of nodes') }),
    },
    { error: expected('expected a workflow definition object') },
  );
  const issues: ValidationIssue[] = [];
  const envelope = envelopeSchema.safeParse(json, { reportInput: true });
  if (!envelope.success) issues.push(...issuesFromZod(envelope.error, '', envelopeSchema, 'field'));

  const rawNodes: readonly unknown[] = Array.isArray(record?.nodes) ? record.nodes : [];
  const nodes: NodeDefinition[] = [];
  const paths = nodePaths(rawNodes.map((raw) => (isRecord(raw) ? raw.name : undefined)));
  rawNodes.forEach((raw, position) => {
    const base = paths[position]!;
    const type = isRecord(raw) ? raw.type : undefined;
    if (!isWorkflowNodeType(type)) {
      issues.push({ path: joinPath(base, 'type'), message: nodeTypeMessage(type) });
      return;
    }
    const schema: z.ZodType<NodeDefinition> = nodeDefinitionSchemas[type];
    const result = schema.safeParse(raw, { reportInput: true });
    if (result.success) nodes.push(result.data);
    else issues.push(...issuesFromZod(result.error, base, schema, 'field'));
  });
  // The rules need whole nodes, so they run once every node has the right shape.
  if (issues.length === 0) issues.push(...definitionIssues({ name: name ?? '', nodes }));
  if (issues.length > 0 || !envelope.success) throw new ValidationError(subject, issues);

  const { hash, ...content } = envelope.data;
  const definition = sealDefinition({ ...content, nodes });
  if (definition.hash !== hash) {
    throw new ValidationError(subject, [
      {
        path: 'hash',
        message: `expected ${definition.hash} (the hash of the definition's content), got ${hash}: the definition was changed after it was built`,
      },
    ]);
  }
  return definition;
}

/** Whether a value is one of the node types. */
export function isWorkflowNodeType(value: unknown): value is WorkflowNodeType {
  return typeof value === 'string' && (WORKFLOW_NODE_TYPES as readonly string[]).includes(value);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Freezes a value and everything reachable from it.
 *
 * @internal
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
