import { describe, expect, expectTypeOf, test } from 'vitest';
import {
  type NodeDefinition,
  type WorkflowDefinition,
  WORKFLOW_NODE_TYPES,
  definitionHash,
  definitionIssues,
  isWorkflowNodeType,
  nodeDefinitionSchema,
  parseWorkflowDefinition,
  workflowDefinitionSchema,
} from './definition.js';
import { ValidationError } from './errors.js';
import { workflow } from './workflow-builder.js';

const built = workflow('order')
  .task('charge', 'payments.charge', { maxAttempts: 5, timeout: '30s' })
  .task('list-items', 'orders.items', { dependsOn: ['charge'] })
  .fanOut('pack', 'orders.pack-item', { from: 'list-items', maxParallel: 4 })
  .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'], maxWait: '2h' })
  .waitAny('first-reply', { signals: ['accepted', 'declined'] })
  .waitN('votes', { signal: 'vote', n: 3 })
  .waitTimer('cool-off', { waitFor: '10m', dependsOn: ['pack'] })
  .child('invoice', { workflow: 'invoice', result: 'pdf', dependsOn: ['pack'] })
  .build();

/** A mutable JSON copy of the built definition, as a database would hand it back. */
type Json = Record<string, unknown> & { nodes: Record<string, unknown>[] };
const stored = (): Json => JSON.parse(JSON.stringify(built)) as Json;

/** Replaces the hash with the right one for the (edited) content, as a careful producer would. */
function rehashed(json: Json): Json {
  return { ...json, hash: definitionHash(json as unknown as WorkflowDefinition) };
}

function parseError(json: unknown): ValidationError {
  try {
    parseWorkflowDefinition(json);
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected parseWorkflowDefinition to throw a ValidationError');
}

/** Reverses key order at every level, as jsonb or another service may. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([k, v]) => [k, reversedKeys(v)]),
  );
}

describe('parseWorkflowDefinition', () => {
  test('accepts the JSON of a built definition and returns an equal, deep-frozen definition', () => {
    const parsed = parseWorkflowDefinition(stored());
    expect(parsed).toStrictEqual(built);
    expect(Object.isFrozen(parsed)).toBe(true);
    expect(Object.isFrozen(parsed.nodes[0])).toBe(true);
  });

  test('accepts the definition with its keys in any order', () => {
    expect(parseWorkflowDefinition(reversedKeys(stored()))).toEqual(built);
  });

  test('accepts a definition without defaults', () => {
    const { defaults: _dropped, ...rest } = stored();
    const parsed = parseWorkflowDefinition(rehashed(rest));
    expect(parsed.defaults).toBeUndefined();
    expect('defaults' in parsed).toBe(false);
  });

  test('refuses a definition whose content no longer matches its hash', () => {
    const json = stored();
    json.nodes[0]!.maxAttempts = 50;
    const error = parseError(json);
    expect(error.subject).toBe('workflow definition "order"');
    expect(error.issues).toEqual([
      {
        path: 'hash',
        message: `expected ${definitionHash(json as unknown as WorkflowDefinition)} (the hash of the definition's content), got ${built.hash}: the definition was changed after it was built`,
      },
    ]);
  });

  test('refuses something that is not a definition object', () => {
    const error = parseError('order');
    expect(error.subject).toBe('workflow definition');
    expect(error.issues).toEqual([
      { path: '', message: 'expected a workflow definition object, got "order"' },
    ]);
  });

  test('refuses another format version and a malformed hash', () => {
    const error = parseError({ ...stored(), format: 2, hash: 'abc' });
    expect(error.issues).toEqual([
      { path: 'format', message: 'expected format 1, got 2' },
      { path: 'hash', message: 'expected a hash of 64 lowercase hex digits, got "abc"' },
    ]);
  });

  test('refuses unknown fields on the definition and on nodes', () => {
    const json = stored();
    json.owner = 'me';
    json.nodes[0]!.maxAttempt = 3;
    const error = parseError(json);
    expect(error.issues).toEqual([
      {
        path: 'owner',
        message: 'unknown field "owner", expected one of: format, name, hash, defaults, nodes',
      },
      {
        path: 'nodes.charge.maxAttempt',
        message: expect.stringContaining(
          'unknown field "maxAttempt" (did you mean "maxAttempts"?)',
        ),
      },
    ]);
  });

  test('refuses an unknown node type, naming the node', () => {
    const json = stored();
    json.nodes[1]!.type = 'script';
    expect(parseError(json).issues).toEqual([
      {
        path: 'nodes.list-items.type',
        message: `expected a node type, one of ${WORKFLOW_NODE_TYPES.join(', ')}, got "script"`,
      },
    ]);
  });

  test('refuses missing and malformed node fields', () => {
    const json = stored();
    delete json.nodes[0]!.backoff;
    json.nodes[5]!.n = 0;
    expect(parseError(json).issues).toEqual([
      {
        path: 'nodes.charge.backoff',
        message: 'expected a backoff policy { initialMs, maxMs, factor, jitter }, got nothing',
      },
      { path: 'nodes.votes.n', message: 'expected a whole number from 1 to 2147483647, got 0' },
    ]);
  });

  test('refuses a stored backoff whose initial delay exceeds its maximum', () => {
    const json = stored();
    json.nodes[0]!.backoff = { initialMs: 5_000, maxMs: 1_000, factor: 2, jitter: 0 };
    expect(parseError(rehashed(json)).issues).toEqual([
      {
        path: 'nodes.charge.backoff',
        message: 'expected the initial delay (5000ms) not to exceed the maximum (1000ms)',
      },
    ]);
  });

  test('re-checks the graph rules: a cycle, even with a matching hash', () => {
    const json = stored();
    json.nodes[0]!.dependsOn = ['list-items'];
    expect(parseError(rehashed(json)).issues).toEqual([
      {
        path: 'nodes.charge.dependsOn',
        message:
          'dependency cycle charge -> list-items -> charge (each node depends on the next), expected no cycles',
      },
    ]);
  });

  test('re-checks that a fan-out lists its source among its dependencies', () => {
    const json = stored();
    json.nodes[2]!.dependsOn = [];
    expect(parseError(rehashed(json)).issues).toEqual([
      {
        path: 'nodes.pack.dependsOn',
        message: 'expected to include "list-items", the node named in from',
      },
    ]);
  });

  test('refuses a definition without nodes', () => {
    expect(parseError(rehashed({ ...stored(), nodes: [] })).issues).toEqual([
      { path: 'nodes', message: 'expected at least one node, got none' },
    ]);
  });
});

describe('workflowDefinitionSchema', () => {
  test('accepts a built definition', () => {
    expect(workflowDefinitionSchema.parse(stored())).toEqual(built);
  });

  test('checks the graph rules too, with zod paths that point at the node', () => {
    const json = stored();
    json.nodes[0]!.dependsOn = ['charge'];
    const result = workflowDefinitionSchema.safeParse(json);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({
        path: ['nodes', 0, 'dependsOn', 0],
        message: 'node "charge" depends on itself, expected other nodes',
      }),
    ]);
  });

  test('tells the node type from the type field', () => {
    const result = nodeDefinitionSchema.safeParse({
      name: 'x',
      type: 'script',
      dependsOn: [],
      onDepFailure: 'fail_run',
    });
    expect(result.error?.issues[0]?.message).toContain(
      'expected a node type, one of task, fan_out',
    );
  });
});

describe('definitionIssues', () => {
  test('is empty for a built definition', () => {
    expect(definitionIssues(built)).toEqual([]);
  });
});

describe('definitionHash', () => {
  test('ignores the hash field itself and follows every other field', () => {
    expect(definitionHash(built)).toBe(built.hash);
    expect(definitionHash({ ...built, hash: 'x' })).toBe(built.hash);
    expect(definitionHash({ ...built, name: 'other' })).not.toBe(built.hash);
  });
});

describe('node types', () => {
  test('are the seven kinds of node, and narrow the node union', () => {
    expect(WORKFLOW_NODE_TYPES).toEqual([
      'task',
      'fan_out',
      'child',
      'wait_signal',
      'wait_any',
      'wait_n',
      'wait_timer',
    ]);
    expect(isWorkflowNodeType('wait_n')).toBe(true);
    expect(isWorkflowNodeType('item')).toBe(false);
    const node = built.nodes[2] as NodeDefinition;
    if (node.type === 'fan_out') expectTypeOf(node.from).toEqualTypeOf<string>();
    expect(node.type).toBe('fan_out');
  });
});
