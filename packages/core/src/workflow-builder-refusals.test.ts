import { describe, expect, test } from 'vitest';
import { MaxTimeoutMs } from './definition.js';
import { ValidationError } from './errors.js';
import { workflow } from './workflow-builder.js';

import { buildError, issueAt, w } from '../test/builder-fixtures.js';

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
      'unknown option "maxAttempt" (did you mean "maxAttempts"?), expected one of: dependsOn, onDepFailure, maxAttempts, timeout, backoff, concurrencyKey, priority, cache',
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
