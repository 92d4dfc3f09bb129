import { describe, expect, it } from 'vitest';
import { ValidationError, workflow } from '@cyclone/core';
import { assertSupportedNodes } from './supported-nodes.js';

describe('assertSupportedNodes', () => {
  it('accepts a workflow of task nodes', () => {
    const def = workflow('tasks')
      .task('a', 'k.a')
      .task('b', 'k.b', { dependsOn: ['a'] })
      .build();
    expect(() => assertSupportedNodes(def)).not.toThrow();
  });

  it('refuses node types this version does not execute, naming each node', () => {
    const def = workflow('waits')
      .task('a', 'k.a')
      .waitSignal('approval', { signal: 'approved', dependsOn: ['a'] })
      .waitTimer('cool-off', { waitFor: '1m', dependsOn: ['a'] })
      .build();
    let error: unknown;
    try {
      assertSupportedNodes(def);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual([
      'nodes.approval',
      'nodes.cool-off',
    ]);
    expect((error as Error).message).toContain(
      'wait_signal nodes are not executed by this version',
    );
  });
});
