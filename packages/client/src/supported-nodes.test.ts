import { describe, expect, it } from 'vitest';
import { ValidationError, workflow } from '@cyclone/core';
import { assertSupportedNodes } from './supported-nodes.js';

describe('assertSupportedNodes', () => {
  it('accepts a workflow of task, fan-out and wait nodes', () => {
    const def = workflow('tasks')
      .task('a', 'k.a')
      .fanOut('pack', 'k.pack', { from: 'a', maxParallel: 2 })
      .task('b', 'k.b', { dependsOn: ['a'] })
      .waitSignal('approval', { signal: 'approved', dependsOn: ['a'] })
      .waitAny('reply', { signals: ['yes', 'no'] })
      .waitN('votes', { signal: 'vote', n: 2 })
      .waitTimer('cool-off', { waitFor: '1m', dependsOn: ['a'] })
      .build();
    expect(() => assertSupportedNodes(def)).not.toThrow();
  });

  it('refuses node types this version does not execute, naming each node', () => {
    const def = workflow('later')
      .task('a', 'k.a')
      .fanOut('pack', 'k.pack', { from: 'a' })
      .child('invoice', { workflow: 'invoice', dependsOn: ['a'] })
      .build();
    let error: unknown;
    try {
      assertSupportedNodes(def);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual(['nodes.invoice']);
    expect((error as Error).message).toContain('child nodes are not executed by this version');
  });
});
