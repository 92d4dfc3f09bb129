/**
 * Scenario 7: PostgreSQL crashes and restarts (`pg_ctl restart -m immediate`, on a cluster the
 * scenario owns) several times while workers and a scheduler work through thousands of runs.
 * Afterwards every run is terminal, the counts are exact (submissions retried through the outage
 * with an idempotency key create no duplicates), a cron schedule still fires, and timers still
 * fire.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { expectEventsFollowTable } from '@cyclone/test-db';
import type { Scheduler } from '@cyclone/scheduler';
import { createEffectsTable } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, runCounts, stepCounts } from '../support/invariants.js';
import { startOwnCluster, type OwnCluster } from '../support/own-cluster.js';
import { delay, eventually, randomBetween } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { startWorker } from '../support/workers.js';

const fixtures = new FixtureSet();
let cluster: OwnCluster;
let pool: pg.Pool;
let client: Client;
beforeAll(async () => {
  cluster = await startOwnCluster({ max_connections: '60' });
  await migrate({ connectionString: cluster.url });
  pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
  pool.on('error', () => undefined);
  await createEffectsTable(pool);
  client = new Client({ pool });
}, 120_000);
afterEach(() => fixtures.killAll());
afterAll(async () => {
  await client?.close();
  await pool?.end();
  await cluster?.destroy();
});

const timed = workflow('fault-restart-timer')
  .task('before', 'fault.work')
  .waitTimer('pause', { waitFor: '1s', dependsOn: ['before'] })
  .task('after', 'fault.work', { dependsOn: ['pause'] })
  .build();

/** Retries `action` through the outage: the database refuses connections while it restarts. */
async function throughOutage<T>(
  action: () => Promise<T>,
  what: string,
): Promise<{ value: T; retries: number }> {
  let retries = 0;
  const value = await eventually(
    () =>
      action().catch(() => {
        retries++;
        return undefined;
      }),
    what,
    60_000,
    100,
  );
  return { value: value as T, retries };
}

it('ends every run, exactly counted, across immediate restarts; schedules and timers still fire', async () => {
  const restarts = trials(3, 1);
  const batches = trials(20, 4);
  const jobsPerBatch = 100;
  const timerRunsPerBatch = 5;
  let scheduler: Scheduler | undefined;
  try {
    scheduler = await startScheduler(cluster.url, { interval: '200ms', workflows: [timed] });
    for (const id of ['restart-w1', 'restart-w2']) {
      await startWorker(fixtures, cluster.url, { id, lease: '2s', concurrency: 8, workMs: '1-10' });
    }
    await client.schedule({
      id: 'fault-every-second',
      cron: '* * * * * *',
      kind: 'fault.echo',
      input: { from: 'schedule' },
      overlap: 'allow',
    });
    let submitRetries = 0;
    let restarted = 0;
    let submitting = true;
    // The restarts come while batches are being submitted and worked on.
    const restarting = (async () => {
      for (let r = 0; r < restarts && submitting; r++) {
        await delay(randomBetween(1_000, 2_500));
        await cluster.restartImmediate();
        restarted++;
      }
    })();
    let submittedBatches = 0;
    // Batches keep coming until the last restart, and at least `batches` of them.
    for (let b = 0; b < batches || restarted < restarts; b++) {
      const jobs = await throughOutage(
        () =>
          client.enqueueMany(
            'fault.work',
            Array.from({ length: jobsPerBatch }, (_, i) => ({ b, i })),
            { idempotencyKey: `jobs-${b}`, maxAttempts: 100 },
          ),
        `batch ${b} to be enqueued`,
      );
      const runs = await throughOutage(
        () =>
          client.submitMany(
            timed,
            Array.from({ length: timerRunsPerBatch }, (_, i) => ({ b, i })),
            { idempotencyKey: `timers-${b}` },
          ),
        `batch ${b}'s timer runs to be submitted`,
      );
      submitRetries += jobs.retries + runs.retries;
      submittedBatches++;
      await delay(150);
    }
    submitting = false;
    await restarting;
    const restartedAt = await throughOutage(
      async () => (await pool.query<{ now: Date }>('SELECT now()')).rows[0]!.now,
      'the database to answer',
    );
    // After the last restart: a new timer run, and new schedule fires.
    const afterwards = await throughOutage(
      () => client.submit(timed, { after: true }, { idempotencyKey: 'after-restarts' }),
      'a run after the restarts',
    );
    await eventually(
      async () => {
        const { rows } = await pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM cyclone_schedule_fires WHERE fire_at > $1 AND outcome = 'submitted'`,
          [restartedAt.value],
        );
        return rows[0]!.n >= 2;
      },
      'the schedule to fire after the restarts',
      60_000,
      200,
    );
    await client.pauseSchedule('fault-every-second');
    await eventually(() => allRunsTerminal(pool), 'every run to end', 180_000, 250);

    const runs = await runCounts(pool);
    const { rows: byWorkflow } = await pool.query<{ workflow: string; n: number }>(
      'SELECT workflow, count(*)::int AS n FROM cyclone_runs GROUP BY workflow',
    );
    const perWorkflow = Object.fromEntries(byWorkflow.map((r) => [r.workflow, r.n]));
    const steps = await stepCounts(pool);
    const { rows: fires } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_schedule_fires WHERE outcome = 'submitted'`,
    );
    reportFigures('postgres-restart', {
      restarts: restarted,
      batches: submittedBatches,
      runs: Object.values(runs).reduce((a, b) => a + b, 0),
      jobs: perWorkflow['fault.work'] ?? 0,
      timer_runs: perWorkflow['fault-restart-timer'] ?? 0,
      schedule_fires: fires[0]!.n,
      submit_retries: submitRetries,
      lost: steps.steps - (steps.byState.completed ?? 0),
      double: steps.doubleCompleted,
      duplicate_exec: steps.duplicateExecutions,
    });

    expect(restarted).toBe(restarts);
    expect(perWorkflow['fault.work']).toBe(submittedBatches * jobsPerBatch);
    expect(perWorkflow['fault-restart-timer']).toBe(submittedBatches * timerRunsPerBatch + 1);
    expect(Object.keys(runs)).toEqual(['completed']);
    expect(steps.byState).toEqual({ completed: steps.steps });
    expect(steps.doubleCompleted).toBe(0);
    expect(steps.completedWithoutEvent).toBe(0);
    expect((await client.getRun(afterwards.value.runId)).state).toBe('completed');
    await expectEventsFollowTable(pool);
  } finally {
    await scheduler?.stop();
  }
});
