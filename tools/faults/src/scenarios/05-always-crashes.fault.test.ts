/**
 * Scenario 5: a step whose worker always crashes (its handler kills its process). The recovery
 * sweep reclaims it `maxReclaims` times and then dead-letters it with `reclaim_limit`; meanwhile
 * its siblings in the run, and other runs, complete on a worker that does not serve its kind (a
 * sibling sharing the crashing process would be reclaimed with it and reach the limit too).
 */
import { afterEach, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, runningSteps } from '../support/invariants.js';
import { eventually } from '../support/poll.js';
import { FixtureSet, type FixtureProcess } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { spawnWorker, startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const crashy = workflow('fault-crashy')
  .task('boom', 'fault.crash')
  .task('a', 'fault.work')
  .task('b', 'fault.work', { dependsOn: ['a'] })
  .task('c', 'fault.work', { dependsOn: ['a'] })
  .build();

it('dead-letters a step that always crashes its worker after maxReclaims, while its siblings complete', async () => {
  const runs = trials(3);
  const maxReclaims = 2;
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  let crashes = 0;
  let stopped = false;
  const keepAlive = (id: string): void => {
    const start = (n: number): FixtureProcess => {
      const worker = spawnWorker(fixtures, db.url, {
        id: `${id}-${n}`,
        lease: '1s',
        kinds: ['fault.crash'],
      });
      void worker.exited.then(({ signal }) => {
        if (stopped) return;
        if (signal === 'SIGKILL') crashes++;
        start(n + 1);
      });
      return worker;
    };
    start(0);
  };
  try {
    const submitted = await db.client.submitMany(
      crashy,
      Array.from({ length: runs }, (_, i) => ({ i })),
      { maxReclaims },
    );
    const runIds = submitted.map((s) => s.runId);
    const jobs = await db.client.enqueueMany(
      'fault.work',
      Array.from({ length: 20 }, (_, i) => ({ i })),
    );
    keepAlive('crashing-a');
    keepAlive('crashing-b');
    await startWorker(fixtures, db.url, { id: 'siblings', lease: '1s', kinds: ['fault.work'] });
    await eventually(
      () => allRunsTerminal(db.pool, [...runIds, ...jobs.map((j) => j.runId)]),
      'every run to end',
      120_000,
      200,
    );
    stopped = true;

    const steps = await db.query<{
      node: string;
      state: string;
      error_kind: string | null;
      reclaims: number;
    }>(
      'SELECT node, state, error_kind, reclaims FROM cyclone_steps WHERE run_id = ANY($1::uuid[])',
      [runIds],
    );
    const boom = steps.filter((s) => s.node === 'boom');
    const siblings = steps.filter((s) => s.node !== 'boom');
    const runStates = await db.query<{ state: string }>(
      'SELECT state FROM cyclone_runs WHERE id = ANY($1::uuid[])',
      [runIds],
    );
    const jobStates = await db.query<{ state: string }>(
      'SELECT state FROM cyclone_runs WHERE id = ANY($1::uuid[])',
      [jobs.map((j) => j.runId)],
    );
    reportFigures('always-crashes', {
      runs,
      max_reclaims: maxReclaims,
      worker_crashes: crashes,
      dead_lettered: boom.filter((s) => s.error_kind === 'reclaim_limit').length,
      siblings_completed: siblings.filter((s) => s.state === 'completed').length,
      other_jobs_completed: jobStates.filter((r) => r.state === 'completed').length,
    });

    for (const step of boom) {
      expect(step).toMatchObject({
        state: 'discarded',
        error_kind: 'reclaim_limit',
        reclaims: maxReclaims,
      });
    }
    expect(siblings.every((s) => s.state === 'completed')).toBe(true);
    expect(runStates.every((r) => r.state === 'failed')).toBe(true);
    expect(jobStates.every((r) => r.state === 'completed')).toBe(true);
    expect(await runningSteps(db.pool)).toBe(0);
    await expectEventsFollowTable(db.pool);
  } finally {
    stopped = true;
    await fixtures.killAll();
    await scheduler.stop();
  }
});
