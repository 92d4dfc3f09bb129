import { describe, expect, expectTypeOf, test } from 'vitest';
import { DefaultBackoff } from './backoff.js';
import {
  type NodeDefinition,
  type WorkflowDefinition,
  MaxTimeoutMs,
  definitionHash,
} from './definition.js';
import { OnDepFailure } from './error-kind.js';
import { ValidationError, type ValidationIssue } from './errors.js';
import { DefaultMaxAttempts, MaxFanOutItems } from './limits.js';
import { type NodeRef, type WorkflowBuilder, workflow } from './workflow-builder.js';

/** The workflow of the API reference. */
const order = () =>
  workflow('order')
    .task('charge', 'payments.charge', { maxAttempts: 5, timeout: '30s' })
    .task('list-items', 'orders.items', { dependsOn: ['charge'] })
    .fanOut('pack', 'orders.pack-item', { from: 'list-items', maxParallel: 4 })
    .waitSignal('approval', { signal: 'approved', dependsOn: ['charge'], maxWait: '2h' })
    .waitAny('first-reply', { signals: ['accepted', 'declined'], dependsOn: ['charge'] })
    .waitN('votes', { signal: 'vote', n: 3, maxWait: '1d' })
    .waitTimer('cool-off', { waitFor: '10m', dependsOn: ['pack'] })
    .child('invoice', { workflow: 'invoice', result: 'pdf', dependsOn: ['pack'] })
    .task('ship', 'shipping.ship', {
      dependsOn: ['cool-off', 'approval'],
      onDepFailure: OnDepFailure.CancelBranch,
    });

function nodeOf(definition: WorkflowDefinition, name: string): NodeDefinition {
  const found = definition.nodes.find((n) => n.name === name);
  if (!found) throw new Error(`no node ${name}`);
  return found;
}

/** The ValidationError `build` throws. */
function buildError(builder: { build(): unknown }): ValidationError {
  try {
    builder.build();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected build() to throw a ValidationError');
}

/** Builds, expects a ValidationError about workflow "order", and returns the issue at `path`. */
function issueAt(builder: { build(): unknown }, path: string): ValidationIssue {
  const error = buildError(builder);
  expect(error.subject).toBe('workflow "order"');
  const issue = error.issues.find((i) => i.path === path);
  if (!issue) throw new Error(`no issue at ${path}; issues: ${JSON.stringify(error.issues)}`);
  return issue;
}

const w = () => workflow('order');

describe('workflow(...).build() produces', () => {
  test('the order workflow of the API reference, nodes in declaration order with options resolved', () => {
    const def = order().build();
    expect(def.format).toBe(1);
    expect(def.name).toBe('order');
    expect(def.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(def.nodes.map((n) => `${n.name}:${n.type}`)).toEqual([
      'charge:task',
      'list-items:task',
      'pack:fan_out',
      'approval:wait_signal',
      'first-reply:wait_any',
      'votes:wait_n',
      'cool-off:wait_timer',
      'invoice:child',
      'ship:task',
    ]);
    expect(nodeOf(def, 'charge')).toEqual({
      name: 'charge',
      type: 'task',
      dependsOn: [],
      onDepFailure: 'fail_run',
      kind: 'payments.charge',
      maxAttempts: 5,
      timeoutMs: 30_000,
      backoff: DefaultBackoff,
    });
    expect(nodeOf(def, 'pack')).toMatchObject({
      type: 'fan_out',
      kind: 'orders.pack-item',
      from: 'list-items',
      dependsOn: ['list-items'],
      maxParallel: 4,
      maxItems: MaxFanOutItems,
      maxAttempts: DefaultMaxAttempts,
    });
    expect(nodeOf(def, 'approval')).toMatchObject({
      signal: 'approved',
      maxWaitMs: 7_200_000,
      dependsOn: ['charge'],
    });
    expect(nodeOf(def, 'first-reply')).toMatchObject({ signals: ['accepted', 'declined'] });
    expect(nodeOf(def, 'votes')).toMatchObject({
      signal: 'vote',
      n: 3,
      maxWaitMs: 86_400_000,
      dependsOn: [],
    });
    expect(nodeOf(def, 'cool-off')).toEqual({
      name: 'cool-off',
      type: 'wait_timer',
      dependsOn: ['pack'],
      onDepFailure: 'fail_run',
      waitForMs: 600_000,
    });
    expect(nodeOf(def, 'invoice')).toEqual({
      name: 'invoice',
      type: 'child',
      dependsOn: ['pack'],
      onDepFailure: 'fail_run',
      workflow: 'invoice',
      result: 'pdf',
    });
    expect(nodeOf(def, 'ship')).toMatchObject({
      onDepFailure: 'cancel_branch',
      dependsOn: ['cool-off', 'approval'],
    });
  });

  test('plain data that equals its JSON round trip exactly', () => {
    const def = order().build();
    expect(JSON.parse(JSON.stringify(def))).toStrictEqual(def);
  });

  test('a deep-frozen object', () => {
    const def = order().build();
    expect(Object.isFrozen(def)).toBe(true);
    expect(Object.isFrozen(def.nodes)).toBe(true);
    expect(def.nodes.every((n) => Object.isFrozen(n) && Object.isFrozen(n.dependsOn))).toBe(true);
    expect(Object.isFrozen((nodeOf(def, 'charge') as { backoff: object }).backoff)).toBe(true);
    expect(() => {
      (def.nodes as NodeDefinition[]).push(nodeOf(def, 'charge'));
    }).toThrow(TypeError);
  });

  test('a hash of its content: the same for the same workflow, different after any change', () => {
    const def = order().build();
    expect(order().build().hash).toBe(def.hash);
    expect(def.hash).toBe(definitionHash(def));
    const changed = [
      workflow('order2').task('charge', 'payments.charge').build(),
      w().task('charge', 'payments.charge').build(),
      w().task('charge', 'payments.charge', { maxAttempts: 4 }).build(),
      w()
        .task('charge', 'payments.charge', { backoff: { jitter: 0 } })
        .build(),
      w().task('charge', 'payments.refund').build(),
    ].map((d) => d.hash);
    expect(new Set([def.hash, ...changed]).size).toBe(changed.length + 1);
  });

  test('the defaults: DefaultMaxAttempts, DefaultBackoff, no timeout, no parallelism limit, fail_run', () => {
    const def = w().task('a', 'k').fanOut('b', 'k', { from: 'a' }).build();
    expect(def.defaults).toEqual({ maxAttempts: DefaultMaxAttempts, backoff: DefaultBackoff });
    const a = nodeOf(def, 'a');
    expect(a).toEqual({
      name: 'a',
      type: 'task',
      dependsOn: [],
      onDepFailure: OnDepFailure.FailRun,
      kind: 'k',
      maxAttempts: DefaultMaxAttempts,
      backoff: DefaultBackoff,
    });
    expect('timeoutMs' in a).toBe(false);
    expect('maxParallel' in nodeOf(def, 'b')).toBe(false);
  });

  test('workflow defaults for task and fan-out nodes that set nothing; node options win field by field', () => {
    const def = workflow('order', {
      defaults: { maxAttempts: 7, timeout: '1m', backoff: { initial: '2s', factor: 3 } },
    })
      .task('a', 'k')
      .fanOut('b', 'k', { from: 'a', maxAttempts: 2, timeout: 500, backoff: { jitter: 0 } })
      .build();
    const resolved = { initialMs: 2_000, maxMs: 600_000, factor: 3, jitter: 0.2 };
    expect(def.defaults).toEqual({ maxAttempts: 7, timeoutMs: 60_000, backoff: resolved });
    expect(nodeOf(def, 'a')).toMatchObject({
      maxAttempts: 7,
      timeoutMs: 60_000,
      backoff: resolved,
    });
    expect(nodeOf(def, 'b')).toMatchObject({
      maxAttempts: 2,
      timeoutMs: 500,
      backoff: { ...resolved, jitter: 0 },
    });
  });

  test('a fan-out whose source is added to dependsOn when missing, after the declared dependencies', () => {
    const def = w()
      .task('x', 'k')
      .task('list', 'k')
      .fanOut('f', 'k', { from: 'list', dependsOn: ['x'] })
      .build();
    expect(nodeOf(def, 'f').dependsOn).toEqual(['x', 'list']);
    const listed = w()
      .task('list', 'k')
      .fanOut('f', 'k', { from: 'list', dependsOn: ['list'] })
      .build();
    expect(nodeOf(listed, 'f').dependsOn).toEqual(['list']);
  });

  test('a dependency on a node declared later', () => {
    const def = w()
      .task('b', 'k', { dependsOn: ['a'] })
      .task('a', 'k')
      .build();
    expect(nodeOf(def, 'b').dependsOn).toEqual(['a']);
  });

  test('durations given in milliseconds or as strings', () => {
    const def = w()
      .task('a', 'k', { timeout: 1_500, backoff: { initial: '250ms', max: '1.5h' } })
      .waitTimer('t', { waitFor: 0 })
      .build();
    expect(nodeOf(def, 'a')).toMatchObject({
      timeoutMs: 1_500,
      backoff: { initialMs: 250, maxMs: 5_400_000 },
    });
    expect(nodeOf(def, 't')).toMatchObject({ waitForMs: 0 });
  });
});

describe('the builder', () => {
  test('is immutable: each method returns a new builder and leaves the old one as it was', () => {
    const base = w().task('a', 'k');
    const withB = base.task('b', 'k');
    expect(withB).not.toBe(base);
    expect(base.build().nodes).toHaveLength(1);
    expect(withB.build().nodes).toHaveLength(2);
    expect(Object.isFrozen(base)).toBe(true);
    expect(base.name).toBe('order');
  });

  test("copies options, so changing the caller's object later changes nothing", () => {
    const options = { dependsOn: ['a'], maxAttempts: 2 };
    const builder = w().task('a', 'k').task('b', 'k', options);
    options.dependsOn.push('zzz');
    options.maxAttempts = 9;
    expect(nodeOf(builder.build(), 'b')).toMatchObject({ dependsOn: ['a'], maxAttempts: 2 });
  });

  test('offers the declared node names to dependsOn and from, and still accepts any string', () => {
    const builder = w().task('a', 'k').task('b', 'k');
    expectTypeOf(builder).toEqualTypeOf<WorkflowBuilder<'a' | 'b'>>();
    expectTypeOf<NodeRef<'a' | 'b'>>().toExtend<string>();
    expectTypeOf<'a'>().toExtend<NodeRef<'a' | 'b'>>();
    // @ts-expect-error maxAttempt is not an option (a typo of maxAttempts)
    expect(() => w().task('a', 'k', { maxAttempt: 3 }).build()).toThrow(ValidationError);
  });
});

describe('build() refuses, with subject workflow "order", the path and what was expected', () => {
  test('a malformed workflow name', () => {
    const error = buildError(workflow('bad name').task('a', 'k'));
    expect(error.subject).toBe('workflow "bad name"');
    expect(error.issues).toEqual([
      {
        path: 'name',
        message: expect.stringMatching(
          /expected a workflow name: 1 to 128 characters.*got "bad name"/,
        ),
      },
    ]);
  });

  test('a workflow without nodes', () => {
    expect(issueAt(w(), 'nodes').message).toBe('expected at least one node, got none');
  });

  test('a malformed node name, naming the node by its position', () => {
    expect(issueAt(w().task('has space', 'k'), 'nodes[0].name').message).toMatch(
      /expected a node name: 1 to 128 characters from A-Z a-z 0-9 _ \. : -, got "has space"/,
    );
    expect(issueAt(w().task('', 'k'), 'nodes[0].name').message).toContain('got ""');
    expect(issueAt(w().task('x'.repeat(129), 'k'), 'nodes[0].name').message).toContain(
      'expected a node name',
    );
  });

  test('a malformed handler kind', () => {
    expect(issueAt(w().task('charge', 'pay charge'), 'nodes.charge.kind').message).toMatch(
      /expected a handler kind.*got "pay charge"/,
    );
  });

  test('a node name used twice', () => {
    expect(issueAt(w().task('a', 'k').task('a', 'k'), 'nodes[1].name').message).toBe(
      '"a" is already the name of nodes[0], expected unique node names',
    );
  });

  test('a dependency on a node that does not exist, suggesting the nearest name', () => {
    const builder = w()
      .task('charge', 'k')
      .task('ship', 'k', { dependsOn: ['chrage'] });
    expect(issueAt(builder, 'nodes.ship.dependsOn[0]').message).toBe(
      '"chrage" is not a node of this workflow (did you mean "charge"?), expected one of: charge, ship',
    );
  });

  test('a node that depends on itself', () => {
    expect(issueAt(w().task('a', 'k', { dependsOn: ['a'] }), 'nodes.a.dependsOn[0]').message).toBe(
      'node "a" depends on itself, expected other nodes',
    );
  });

  test('a dependency listed twice', () => {
    const builder = w()
      .task('a', 'k')
      .task('b', 'k', { dependsOn: ['a', 'a'] });
    expect(issueAt(builder, 'nodes.b.dependsOn[1]').message).toContain('"a" is listed twice');
  });

  test('a dependency cycle, naming it', () => {
    const builder = w()
      .task('a', 'k', { dependsOn: ['c'] })
      .task('b', 'k', { dependsOn: ['a'] })
      .task('c', 'k', { dependsOn: ['b'] });
    expect(issueAt(builder, 'nodes.a.dependsOn').message).toBe(
      'dependency cycle a -> c -> b -> a (each node depends on the next), expected no cycles',
    );
  });

  test('dependsOn that is not an array of names', () => {
    expect(
      issueAt(w().task('a', 'k', { dependsOn: 'b' as never }), 'nodes.a.dependsOn').message,
    ).toBe('expected an array of node names, got "b"');
    expect(
      issueAt(w().task('a', 'k', { dependsOn: ['x y'] }), 'nodes.a.dependsOn[0]').message,
    ).toContain('expected a node name');
  });

  test('an unknown onDepFailure', () => {
    expect(
      issueAt(w().task('a', 'k', { onDepFailure: 'ignore' as never }), 'nodes.a.onDepFailure')
        .message,
    ).toBe(
      'expected "fail_run" or "cancel_branch" (OnDepFailure.FailRun or .CancelBranch), got "ignore"',
    );
  });

  test('maxAttempts that is not a positive whole number', () => {
    for (const [value, shown] of [
      [0, '0'],
      [1.5, '1.5'],
      ['3', '"3"'],
    ] as const) {
      const builder = w().task('charge', 'k', { maxAttempts: value as number });
      expect(issueAt(builder, 'nodes.charge.maxAttempts').message).toBe(
        `expected a whole number from 1 to 2147483647, got ${shown}`,
      );
    }
  });

  test('an unknown option, such as a typo, suggesting the option meant', () => {
    expect(
      issueAt(w().task('charge', 'k', { maxAttempt: 3 } as never), 'nodes.charge.maxAttempt')
        .message,
    ).toBe(
      'unknown option "maxAttempt" (did you mean "maxAttempts"?), expected one of: dependsOn, onDepFailure, maxAttempts, timeout, backoff',
    );
    expect(
      issueAt(
        w().task('charge', 'k', { backoff: { intial: '1s' } } as never),
        'nodes.charge.backoff.intial',
      ).message,
    ).toContain('unknown option "intial" (did you mean "initial"?)');
  });

  test('options that are not an object', () => {
    expect(issueAt(w().task('a', 'k', 'fast' as never), 'nodes.a').message).toBe(
      'expected an options object for .task(), got "fast"',
    );
    expect(issueAt(w().waitSignal('a', undefined as never), 'nodes.a').message).toBe(
      'expected an options object for .waitSignal(), got nothing',
    );
  });

  test('a malformed, zero or too long timeout', () => {
    expect(
      issueAt(w().task('a', 'k', { timeout: 'soon' as never }), 'nodes.a.timeout').message,
    ).toMatch(/^expected a timeout: milliseconds or a string such as '500ms', '30s'.*got "soon"$/);
    expect(issueAt(w().task('a', 'k', { timeout: '0s' }), 'nodes.a.timeout').message).toContain(
      'from 1ms',
    );
    expect(issueAt(w().task('a', 'k', { timeout: '25d' }), 'nodes.a.timeout').message).toContain(
      `to ${MaxTimeoutMs}ms, got "25d"`,
    );
  });

  test('backoff fields out of range', () => {
    const builder = w().task('a', 'k', { backoff: { factor: 0.5, jitter: 1.5, initial: -1 } });
    expect(issueAt(builder, 'nodes.a.backoff.factor').message).toBe(
      'expected a growth factor from 1 to 1000, got 0.5',
    );
    expect(issueAt(builder, 'nodes.a.backoff.jitter').message).toBe(
      'expected a jitter fraction from 0 to 1, got 1.5',
    );
    expect(issueAt(builder, 'nodes.a.backoff.initial').message).toContain(
      'expected an initial delay',
    );
  });

  test('a backoff whose initial delay exceeds its maximum, defaults included', () => {
    expect(
      issueAt(w().task('a', 'k', { backoff: { initial: '20m' } }), 'nodes.a.backoff').message,
    ).toBe('expected the initial delay (1200000ms) not to exceed the maximum (600000ms)');
  });

  test('a fan-out source that is unknown, the node itself, or a wait node', () => {
    expect(
      issueAt(w().task('list', 'k').fanOut('pack', 'k', { from: 'lst' }), 'nodes.pack.from')
        .message,
    ).toContain('"lst" is not a node of this workflow (did you mean "list"?)');
    expect(issueAt(w().fanOut('pack', 'k', { from: 'pack' }), 'nodes.pack.from').message).toBe(
      'fan-out node "pack" takes its list from itself, expected an upstream node',
    );
    const fromWait = w().waitSignal('ok', { signal: 's' }).fanOut('pack', 'k', { from: 'ok' });
    expect(issueAt(fromWait, 'nodes.pack.from').message).toBe(
      '"ok" is a wait_signal node (its output is an object, never a list), expected a task, fan_out or child node',
    );
  });

  test('fan-out limits below 1', () => {
    const builder = w()
      .task('list', 'k')
      .fanOut('pack', 'k', { from: 'list', maxParallel: 0, maxItems: 0 });
    expect(issueAt(builder, 'nodes.pack.maxParallel').message).toBe(
      'expected a whole number from 1 to 2147483647, got 0',
    );
    expect(issueAt(builder, 'nodes.pack.maxItems').message).toBe(
      'expected a whole number from 1 to 2147483647, got 0',
    );
  });

  test('a negative or fractional maxParallel is refused at build, naming the field', () => {
    for (const maxParallel of [-1, 1.5]) {
      const builder = w().task('list', 'k').fanOut('pack', 'k', { from: 'list', maxParallel });
      expect(issueAt(builder, 'nodes.pack.maxParallel').message).toBe(
        `expected a whole number from 1 to 2147483647, got ${maxParallel}`,
      );
      expect(() => builder.build()).toThrow(ValidationError);
    }
  });

  test('a signal wait without a well-formed signal name', () => {
    expect(issueAt(w().waitSignal('ok', {} as never), 'nodes.ok.signal').message).toMatch(
      /^expected a signal name: .*got nothing$/,
    );
    expect(issueAt(w().waitSignal('ok', { signal: 'a b' }), 'nodes.ok.signal').message).toContain(
      'got "a b"',
    );
    expect(
      issueAt(w().waitSignal('ok', { signal: 's', maxWait: 0 }), 'nodes.ok.maxWait').message,
    ).toContain('expected a maximum wait');
  });

  test('waitAny with no signals or a signal listed twice', () => {
    expect(issueAt(w().waitAny('r', { signals: [] }), 'nodes.r.signals').message).toBe(
      'expected at least 1 signal name, got []',
    );
    expect(issueAt(w().waitAny('r', { signals: ['yes', 'yes'] }), 'nodes.r.signals').message).toBe(
      'expected distinct signal names, got "yes" twice',
    );
  });

  test('waitN with n below 1 or not whole', () => {
    expect(issueAt(w().waitN('votes', { signal: 'vote', n: 0 }), 'nodes.votes.n').message).toBe(
      'expected a whole number from 1 to 2147483647, got 0',
    );
    expect(
      issueAt(w().waitN('votes', { signal: 'vote', n: 2.5 }), 'nodes.votes.n').message,
    ).toContain('got 2.5');
  });

  test('waitTimer without a well-formed duration', () => {
    expect(
      issueAt(w().waitTimer('t', { waitFor: '10 minutes' as never }), 'nodes.t.waitFor').message,
    ).toContain('expected a wait: milliseconds or a string');
    expect(issueAt(w().waitTimer('t', { waitFor: -5 }), 'nodes.t.waitFor').message).toContain(
      'got -5',
    );
  });

  test('a child node with a malformed workflow or result, or one that starts its own workflow', () => {
    expect(issueAt(w().child('c', { workflow: '' }), 'nodes.c.workflow').message).toContain(
      'expected a workflow name',
    );
    expect(
      issueAt(w().child('c', { workflow: 'invoice', result: 'a/b' }), 'nodes.c.result').message,
    ).toContain('expected a node name');
    expect(issueAt(w().child('c', { workflow: 'order' }), 'nodes.c.workflow').message).toBe(
      'workflow "order" cannot start itself as a child (every run would start another without end), expected another workflow',
    );
  });

  test('options that do not belong to the node type', () => {
    expect(
      issueAt(w().waitTimer('t', { waitFor: '1s', maxAttempts: 3 } as never), 'nodes.t.maxAttempts')
        .message,
    ).toBe('unknown option "maxAttempts", expected one of: dependsOn, onDepFailure, waitFor');
  });

  test('malformed workflow defaults and unknown workflow options', () => {
    const builder = workflow('order', {
      defaults: { maxAttempts: 0, timeot: '1s' },
      retries: 3,
    } as never).task('a', 'k');
    expect(issueAt(builder, 'options.defaults.maxAttempts').message).toBe(
      'expected a whole number from 1 to 2147483647, got 0',
    );
    expect(issueAt(builder, 'options.defaults.timeot').message).toContain(
      '(did you mean "timeout"?)',
    );
    expect(issueAt(builder, 'options.retries').message).toBe(
      'unknown option "retries", expected one of: defaults',
    );
  });

  test('every problem at once rather than the first only', () => {
    const error = buildError(
      w()
        .task('a', 'k', { maxAttempts: 0, dependsOn: ['ghost'] })
        .task('a', 'bad kind')
        .waitN('votes', { signal: 'vote', n: 0 }),
    );
    expect(error.issues.map((i) => i.path)).toEqual([
      'nodes.a.maxAttempts',
      'nodes[1].kind',
      'nodes.votes.n',
      'nodes[1].name',
      'nodes.a.dependsOn[0]',
    ]);
    expect(error.message).toMatch(
      /^invalid workflow "order": nodes\.a\.maxAttempts: expected a whole number/,
    );
  });
});
