import { describe, expect, expectTypeOf, test } from 'vitest';
import { DefaultBackoff } from './backoff.js';
import { type NodeDefinition, definitionHash } from './definition.js';
import { OnDepFailure } from './error-kind.js';
import { ValidationError } from './errors.js';
import { DefaultMaxAttempts, MaxFanOutItems } from './limits.js';
import { type NodeRef, workflow } from './workflow-builder.js';
import { type NodesOf } from './workflow-types.js';

import { nodeOf, order, w } from '../test/builder-fixtures.js';

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
    const def = w().task('a', 'k').task('b', 'k').build();
    expect(def.nodes).toHaveLength(2);
    expectTypeOf<keyof NodesOf<typeof def>>().toEqualTypeOf<'a' | 'b'>();
    expectTypeOf<NodeRef<'a' | 'b'>>().toExtend<string>();
    expectTypeOf<'a'>().toExtend<NodeRef<'a' | 'b'>>();
    // @ts-expect-error maxAttempt is not an option (a typo of maxAttempts)
    expect(() => w().task('a', 'k', { maxAttempt: 3 }).build()).toThrow(ValidationError);
  });
});
