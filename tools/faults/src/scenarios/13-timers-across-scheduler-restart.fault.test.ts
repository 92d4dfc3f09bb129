/**
 * Scenario 13: thousands of timers (`waitTimer` nodes) due in the same second, and the scheduler
 * process firing them is killed (SIGKILL) midway and replaced. Each timer fires exactly once.
 *
 * The runs are submitted with a long timer, and their due times are then set to one instant, so
 * that they are all due together however long the submission took.
 */
import { afterEach, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { urlNamed, useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, stepCounts } from '../support/invariants.js';
import { eventually } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { trials } from '../support/trials.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const timerOnly = workflow('fault-timer-only').waitTimer('nap', { waitFor: '1h' }).build();

function startScheduler(id: string) {
  return fixtures.start(
    'scheduler-process',
    { FAULT_DATABASE_URL: urlNamed(db.url, id), FAULT_SCHEDULER_ID: id, FAULT_INTERVAL: '200ms' },
    id,
  );
}

async function fired(runIds: string[]): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM cyclone_steps WHERE run_id = ANY($1::uuid[]) AND state = 'completed'`,
    [runIds],
  );
  return row!.n;
}

it('fires each of thousands of simultaneous timers once across a scheduler kill', async () => {
  const timers = trials(800, 200);
  const runIds: string[] = [];
  for (let offset = 0; offset < timers; offset += 1_000) {
    const batch = await db.client.submitMany(
      timerOnly,
      Array.from({ length: Math.min(1_000, timers - offset) }, (_, i) => ({ i: offset + i })),
    );
    runIds.push(...batch.map((b) => b.runId));
  }
  const [{ due }] = (await db.query<{ due: Date }>(
    `UPDATE cyclone_steps SET scheduled_at = date_trunc('second', now()) + interval '1 second'
     WHERE state = 'waiting_timer' RETURNING scheduled_at AS due`,
  )) as [{ due: Date }];

  const first = startScheduler('timers-a');
  await first.line((l) => l.fixture === 'ready', 'the first scheduler to start', 60_000);
  const killAfter = Math.floor(timers / 3);
  await eventually(
    async () => (await fired(runIds)) >= killAfter,
    'a third of the timers to fire',
    120_000,
    20,
  );
  await first.kill();
  const firedBeforeKill = await fired(runIds);
  const second = startScheduler('timers-b');
  await second.line((l) => l.fixture === 'ready', 'the second scheduler to start', 60_000);
  await eventually(() => allRunsTerminal(db.pool, runIds), 'every timer to fire', 170_000, 250);

  const counts = await stepCounts(db.pool, runIds);
  const [span] = await db.query<{ first_ms: number; last_ms: number }>(
    `SELECT extract(epoch FROM (min(e.at) - $2::timestamptz)) * 1000 AS first_ms,
            extract(epoch FROM (max(e.at) - $2::timestamptz)) * 1000 AS last_ms
     FROM cyclone_history e WHERE e.run_id = ANY($1::uuid[]) AND e.to_state = 'completed'
       AND e.step_id IS NOT NULL`,
    [runIds, due],
  );
  const drainMs = Number(span!.last_ms) - Number(span!.first_ms);
  reportFigures('timers-scheduler-kill', {
    timers,
    fired_before_kill: firedBeforeKill,
    fired: counts.byState.completed ?? 0,
    double: counts.doubleCompleted,
    first_fire_after_due_ms: Number(span!.first_ms),
    drain_ms: drainMs,
    fires_per_s: Math.round((timers / Math.max(1, drainMs)) * 1000),
  });

  expect(counts.byState).toEqual({ completed: timers });
  expect(counts.doubleCompleted).toBe(0);
  expect(counts.completedWithoutEvent).toBe(0);
  // None fired early.
  expect(Number(span!.first_ms)).toBeGreaterThanOrEqual(0);
  await expectEventsFollowTable(db.pool);
});
