/** Workflows and helpers the builder's tests share. */
import { expect } from 'vitest';
import { type NodeDefinition, type WorkflowDefinition } from '../src/definition.js';
import { OnDepFailure } from '../src/error-kind.js';
import { ValidationError, type ValidationIssue } from '../src/errors.js';
import { workflow } from '../src/workflow-builder.js';

/** The workflow of the API reference. */
export const order = () =>
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

export function nodeOf(definition: WorkflowDefinition, name: string): NodeDefinition {
  const found = definition.nodes.find((n) => n.name === name);
  if (!found) throw new Error(`no node ${name}`);
  return found;
}

/** The ValidationError `build` throws. */
export function buildError(builder: { build(): unknown }): ValidationError {
  try {
    builder.build();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected build() to throw a ValidationError');
}

/** Builds, expects a ValidationError about workflow "order", and returns the issue at `path`. */
export function issueAt(builder: { build(): unknown }, path: string): ValidationIssue {
  const error = buildError(builder);
  expect(error.subject).toBe('workflow "order"');
  const issue = error.issues.find((i) => i.path === path);
  if (!issue) throw new Error(`no issue at ${path}; issues: ${JSON.stringify(error.issues)}`);
  return issue;
}

export const w = () => workflow('order');
