/**
 * Checking answers against the served API description: each answer's status and media type must
 * be described for its operation, and a JSON body must validate (JSON Schema 2020-12, the dialect
 * of OpenAPI 3.1) against the described schema, made strict: an object may hold no property the
 * description does not list, so a field a route adds without describing it fails.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import type { Answer } from './support.js';

const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

/** The parts of an OpenAPI document the checks read. */
export interface Description {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly schemas: Record<string, unknown> };
}

/** One operation of the description. */
export interface Operation {
  readonly operationId: string;
  readonly security?: unknown[];
  readonly responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

/** Every object schema with listed properties, closed to others (`unevaluatedProperties`). */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== 'object') return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = closed(value);
  if ('properties' in copy && !('additionalProperties' in copy)) {
    copy['unevaluatedProperties'] = false;
  }
  return copy;
}

/** The answers seen, by operation, and the checks of each against the description. */
export class AnswerChecker {
  /** The operationIds an answer was checked for. */
  readonly seen = new Set<string>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });

  constructor(readonly description: Description) {
    addFormats(this.ajv);
    this.ajv.addSchema({
      $id: 'cyclone-api',
      components: closed(description.components) as Record<string, unknown>,
    });
  }

  /** The operation for `method` and a path in OpenAPI's form (`/api/runs/{id}`). */
  operation(method: string, template: string): Operation {
    const operation = this.description.paths[template]?.[method.toLowerCase()];
    expect(operation, `${method} ${template} is described`).toBeDefined();
    return operation!;
  }

  /** Checks an answer of `method` `template` against the description, and records it. */
  check(method: string, template: string, answer: Answer): void {
    const operation = this.operation(method, template);
    const where = `${method} ${template} ${answer.status}`;
    const response = operation.responses[String(answer.status)];
    expect(
      response,
      `${where} is a described status (body: ${answer.text.slice(0, 300)})`,
    ).toBeDefined();
    const mediaType = (answer.headers.get('content-type') ?? '').split(';')[0]!.trim();
    const described = response!.content?.[mediaType];
    expect(described, `${where} answers ${mediaType}, which is described`).toBeDefined();
    if (mediaType === 'application/json') {
      const schema = {
        $id: `answer-${this.seen.size}-${Math.random()}`,
        ...(this.reroot(closed(described!.schema)) as object),
      };
      const validate = this.ajv.compile(schema);
      const valid = validate(answer.body);
      expect(valid, `${where}: ${this.ajv.errorsText(validate.errors)}`).toBe(true);
    }
    this.seen.add(operation.operationId);
  }

  /** A schema whose `#/components/...` references point into the registered description. */
  private reroot(schema: unknown): unknown {
    return JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"cyclone-api#/components/'),
    ) as unknown;
  }
}
