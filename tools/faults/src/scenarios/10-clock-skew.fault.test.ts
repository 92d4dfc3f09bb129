/**
 * Scenario 10: the workers' clocks are wrong by five minutes, one ahead and one behind (`Date` is
 * shifted in each worker process). Leases, backoff, run deadlines and timers follow the database's
 * clock: nothing is reclaimed early (a step running for several lease lengths, renewed by
 * heartbeats, is never reclaimed), a retry waits its backoff, a deadline ends its run neither early
 * nor minutes late, and a timer fires after its delay.
 */
import { afterEach, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal } from '../support/invariants.js';
import { eventually } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const skewMs = 5 * 60_000;
const timed = workflow('fault-skew-timer')
  .task('before', 'fault.echo')
  .waitTimer('nap', { waitFor: '1s', dependsOn: ['before'] })
  .task('after', 'fault.echo', { dependsOn: ['nap'] })
  .build();

it("follows the database's clock when the workers' clocks are five minutes off", async () => {
  const n = trials(6, 2);
  const scheduler = await startScheduler(db.url, { interval: '200ms', workflows: [timed] });
  try {
    for (const [id, skew] of [
      ['ahead', skewMs],
      ['behind', -skewMs],
    ] as const) {
      await startWorker(fixtures, db.url, {
        id,
        clockSkewMs: skew,
        lease: '1s',
        workMs: '2500-3000',
        concurrency: 4,
      });
    }
    // Longer than two leases: only heartbeats on the database's clock keep them.
    const long = await db.client.enqueueMany(
      'fault.work',
      Array.from({ length: n }, (_, i) => ({ i })),
    );
    const retried = await db.client.enqueueMany(
      'fault.fail-once',
      Array.from({ length: n }, (_, i) => ({ i })),
    );
    const timers = await db.client.submitMany(
      timed,
      Array.from({ length: n }, (_, i) => ({ i })),
    );
    const deadlines = await db.client.enqueueMany(
      'fault.hold',
      Array.from({ length: 2 }, () => ({ holdBy: 'nobody' })),
      { runDeadline: '3s', scheduledAt: '1h' },
    );
    const all = [long, retried, timers, deadlines].flat().map((r) => r.runId);
    await eventually(() => allRunsTerminal(db.pool, all), 'every run to end', 60_000, 200);

    const [reclaims] = await db.query<{ n: number }>(
      'SELECT coalesce(sum(reclaims), 0)::int AS n FROM cyclone_steps WHERE run_id = ANY($1::uuid[])',
      [all],
    );
    const backoff = await db.query<{ ms: number; waited_ms: number }>(
      `SELECT extract(epoch FROM (s.scheduled_at - e.at)) * 1000 AS ms,
              extract(epoch FROM (s.started_at - e.at)) * 1000 AS waited_ms
       FROM cyclone_steps s JOIN cyclone_history e ON e.step_id = s.id AND e.type = 'step_retry_scheduled'
       WHERE s.run_id = ANY($1::uuid[])`,
      [retried.map((r) => r.runId)],
    );
    const timerWaits = await db.query<{ ms: number }>(
      `SELECT extract(epoch FROM (f.at - p.at)) * 1000 AS ms
       FROM cyclone_history p JOIN cyclone_history f ON f.step_id = p.step_id AND f.to_state = 'completed'
       WHERE p.to_state = 'waiting_timer' AND p.run_id = ANY($1::uuid[])`,
      [timers.map((r) => r.runId)],
    );
    const deadlineRuns = await db.query<{ state: string; ms: number }>(
      `SELECT state, extract(epoch FROM (ended_at - created_at)) * 1000 AS ms FROM cyclone_runs
       WHERE id = ANY($1::uuid[])`,
      [deadlines.map((r) => r.runId)],
    );
    const runStates = await db.query<{ state: string; n: number }>(
      `SELECT state, count(*)::int AS n FROM cyclone_runs WHERE id = ANY($1::uuid[]) GROUP BY state`,
      [[long, retried, timers].flat().map((r) => r.runId)],
    );
    const range = (values: number[]) =>
      `${Math.round(Math.min(...values))}-${Math.round(Math.max(...values))}ms`;
    reportFigures('clock-skew', {
      skew: '±5m',
      runs: all.length,
      reclaims: reclaims!.n,
      backoff: range(backoff.map((b) => Number(b.ms))),
      timer_wait: range(timerWaits.map((t) => Number(t.ms))),
      deadline_after: range(deadlineRuns.map((d) => Number(d.ms))),
    });

    expect(runStates).toEqual([{ state: 'completed', n: 3 * n }]);
    expect(reclaims!.n).toBe(0);
    expect(backoff).toHaveLength(n);
    for (const b of backoff) {
      // Default backoff of a first retry: 0.8 s to 1 s, by the database's clock (the event's time
      // is the clock at its insert, a few milliseconds after the transaction's now()).
      expect(Number(b.ms)).toBeGreaterThanOrEqual(700);
      expect(Number(b.ms)).toBeLessThanOrEqual(1_100);
      expect(Number(b.waited_ms)).toBeGreaterThanOrEqual(Number(b.ms) - 10);
    }
    expect(timerWaits).toHaveLength(n);
    for (const t of timerWaits) {
      expect(Number(t.ms)).toBeGreaterThanOrEqual(990);
      expect(Number(t.ms)).toBeLessThan(60_000);
    }
    for (const d of deadlineRuns) {
      expect(d.state).toBe('failed');
      expect(Number(d.ms)).toBeGreaterThanOrEqual(2_990);
      expect(Number(d.ms)).toBeLessThan(60_000);
    }
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
});
