import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, type StoreFixture } from '../fixture.js';

/** A failure of a claimed step, as the worker reports it. */
export const failure = (
  stepId: string,
  claimToken: string,
  over: Record<string, unknown> = {},
) => ({
  stepId,
  claimToken,
  errorKind: 'permanent' as const,
  error: 'boom',
  panicStack: 'stack',
  attempts: 0,
  maxAttempts: 1,
  retryDelayMs: 60_000,
  ...over,
});

/** The states of a run's steps by node. */
export async function statesOf(fx: StoreFixture, runId: string): Promise<Record<string, string>> {
  const rows = await fx.query<{ node: string; state: string }>(
    'SELECT node, state FROM cyclone_steps WHERE run_id = $1 AND item_index IS NULL',
    [runId],
  );
  return Object.fromEntries(rows.map((r) => [r.node, r.state]));
}

/** The step id of a node. */
export async function stepOf(fx: StoreFixture, runId: string, node: string): Promise<string> {
  const [row] = await fx.query<{ id: string }>(
    'SELECT id FROM cyclone_steps WHERE run_id = $1 AND node = $2',
    [runId, node],
  );
  if (!row) throw new Error(`no node ${node}`);
  return row.id;
}

/**
 * A run of `a -> b` and a parallel `c`, whose `a` is discarded permanently: the run fails and
 * fail-fast cancels `b` and `c`. `prefix` keeps the handler kinds of each test apart.
 */
export async function failedRun(fx: StoreFixture, prefix: string) {
  const def = workflow(`${prefix}-wf`)
    .task('a', `${prefix}.a`)
    .task('b', `${prefix}.b`, { dependsOn: ['a'] })
    .task('c', `${prefix}.c`)
    .build();
  const run = runOfDefinition(def, 'null');
  await fx.submit(run);
  const a = await claimOne(fx, `${prefix}.a`);
  await fx.store.fail(failure(a.id, a.claimToken));
  return { runId: run.id, stepA: a.id };
}
