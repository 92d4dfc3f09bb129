/**
 * The readers on runs in history (decision 426): runs finish on the hot tables, move into history
 * as the scheduler of that layout will move them, and every read finds them there as it found
 * them hot, while the hot tables, which the store writes, no longer hold them.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { PostgresStore } from '../../src/store.js';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { makeHotAndHistory, moveFinishedToHistory } from '../hot-and-history.js';

const db = useTestDatabase();
let pool: pg.Pool;
let store: PostgresStore;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  await makeHotAndHistory(pool);
  store = new PostgresStore({ pool, tableLayout: 'hot-and-history' });
});
afterAll(async () => {
  await pool?.end();
});

/** Claims the one available step of `kind` and completes it with `output`. */
async function runStep(kind: string, output: unknown): Promise<void> {
  const [claimed] = await store.claim({ kinds: [kind], limit: 1, workerId: 'w', leaseMs: 60_000 });
  if (!claimed) throw new Error(`nothing of kind ${kind} to claim`);
  await store.complete([
    { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: JSON.stringify(output) },
  ]);
}

/** How many rows of `ids` each hot table and each history holds. */
async function whereRowsAre(ids: string[]): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ place: string; n: number }>(
    `SELECT 'runs_hot' AS place, count(*)::int AS n FROM cyclone_runs_hot WHERE id = ANY($1)
     UNION ALL SELECT 'runs_history', count(*)::int FROM cyclone_runs_history WHERE id = ANY($1)
     UNION ALL SELECT 'steps_hot', count(*)::int FROM cyclone_steps_hot WHERE run_id = ANY($1)
     UNION ALL SELECT 'steps_history', count(*)::int FROM cyclone_steps_history
               WHERE run_id = ANY($1)`,
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.place, r.n]));
}

describe('runs in history', () => {
  const flow = workflow('history.flow')
    .task('a', 'history.a')
    .task('b', 'history.b', { dependsOn: ['a'] })
    .build();
  let jobId: string;
  let flowId: string;
  let failedId: string;
  let cancelledId: string;
  let openId: string;

  beforeAll(async () => {
    const job = runOfJob('history.job', JSON.stringify({ n: 1 }));
    const run = runOfDefinition(flow, JSON.stringify({ n: 2 }));
    const failing = runOfJob('history.fails', 'null', { maxAttempts: 1 });
    const cancelled = runOfJob('history.cancelled', 'null');
    const open = runOfJob('history.open', 'null');
    await store.registerWorkflows([flow]);
    await store.submit([job, run, failing, cancelled, open]);
    [jobId, flowId, failedId, cancelledId, openId] = [
      job.id,
      run.id,
      failing.id,
      cancelled.id,
      open.id,
    ];
    await runStep('history.job', { job: 'done' });
    await runStep('history.a', { a: 1 });
    await runStep('history.b', { b: 2 });
    const [failingStep] = await store.claim({
      kinds: ['history.fails'],
      limit: 1,
      workerId: 'w',
      leaseMs: 60_000,
    });
    expect(
      await store.fail({
        stepId: failingStep!.id,
        claimToken: failingStep!.claimToken,
        errorKind: 'permanent',
        error: 'boom',
        panicStack: null,
        attempts: 0,
        maxAttempts: 1,
        retryDelayMs: 0,
      }),
    ).toBe('discarded');
    await store.cancelRun(cancelledId);
    await expectEventsFollowTable(pool, 0);
    expect(await moveFinishedToHistory(pool)).toBe(4);
  });

  it('moves the finished runs with their steps, and leaves the open run hot', async () => {
    expect(await whereRowsAre([jobId, flowId, failedId, cancelledId])).toEqual({
      runs_hot: 0,
      runs_history: 4,
      steps_hot: 0,
      steps_history: 5,
    });
    expect(await whereRowsAre([openId])).toEqual({
      runs_hot: 1,
      runs_history: 0,
      steps_hot: 1,
      steps_history: 0,
    });
  });

  it('reads a run in history by id, alone and among others', async () => {
    expect(await store.getRun(flowId)).toMatchObject({
      id: flowId,
      workflow: 'history.flow',
      state: 'completed',
    });
    expect(await store.getRun(failedId)).toMatchObject({
      state: 'failed',
      failedNode: 'history.fails',
    });
    expect(await store.getRun(cancelledId)).toMatchObject({ state: 'cancelled' });
    const runs = await store.getRuns([jobId, openId]);
    expect(runs.map((r) => [r.id, r.state]).sort()).toEqual(
      [
        [jobId, 'completed'],
        [openId, 'running'],
      ].sort(),
    );
  });

  it('lists runs in history beside hot ones, newest first, and by workflow', async () => {
    const all = await store.listRuns({ limit: 10 });
    expect(all.runs.map((r) => r.id)).toEqual([openId, cancelledId, failedId, flowId, jobId]);
    const flows = await store.listRuns({ workflow: 'history.flow' });
    expect(flows.runs.map((r) => r.id)).toEqual([flowId]);
  });

  it("lists a run's steps with their outputs, its events, its node outputs and its leaves", async () => {
    const steps = await store.listSteps(flowId);
    expect(steps.map((s) => [s.node, s.state, s.output])).toEqual([
      ['a', 'completed', { a: 1 }],
      ['b', 'completed', { b: 2 }],
    ]);
    const events = await store.listEvents(flowId);
    expect(events.map((e) => e.type)).toContain('run_completed');
    expect(await store.nodeOutput(flowId, 'a')).toEqual({ state: 'completed', output: { a: 1 } });
    expect(await store.leafOutputs(flowId)).toEqual([{ node: 'b', output: { b: 2 } }]);
    expect(await store.leafOutputs(jobId)).toEqual([
      { node: 'history.job', output: { job: 'done' } },
    ]);
  });

  it('explains a node of a run in history, and lists its exhausted step in the DLQ', async () => {
    const facts = await store.nodeFacts(flowId, { node: 'b' }, 60_000);
    expect(facts).toMatchObject({ run: expect.objectContaining({ state: 'completed' }) });
    const dlq = await store.listExhausted({ reason: 'permanent' });
    expect(dlq.steps.map((s) => s.runId)).toEqual([failedId]);
  });
});
