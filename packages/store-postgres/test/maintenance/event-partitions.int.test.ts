import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { uuidv7 } from '../../src/db/ids.js';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { periodBound, periodPartitionName } from '../../src/maintenance/event-periods.js';
import { useStore, type StoreFixture } from '../fixture.js';

const fx = useStore();
const HOUR = 3_600_000;

/** The partitions of the events table, by name, with their bounds. */
async function partitions(f: StoreFixture): Promise<Map<string, string>> {
  const rows = await f.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'cyclone_events'::regclass`,
  );
  return new Map(rows.map((r) => [r.name, r.bound]));
}

/** Where each stored event of a run sits. */
async function eventTables(f: StoreFixture, runId: string): Promise<string[]> {
  const rows = await f.query<{ t: string }>(
    'SELECT DISTINCT tableoid::regclass::text AS t FROM cyclone_events WHERE run_id = $1',
    [runId],
  );
  return rows.map((r) => r.t);
}

/** A job whose run (and step) id is made at `ms`: its events belong to that period. */
function jobAt(kind: string, ms: number) {
  const run = runOfJob(kind, 'null');
  const id = uuidv7(ms);
  return { ...run, id, steps: [{ ...run.steps[0]!, id }] };
}

/** Cancels a run: its step's discard and the run's cancel are stored events. */
async function cancelled(f: StoreFixture, ms: number): Promise<string> {
  const run = jobAt('partition.job', ms);
  await f.submit(run);
  await f.store.cancelRun(run.id);
  return run.id;
}

describe('maintainEventPartitions', () => {
  // Periods far ahead of today, so the test's periods are its own: the initial partition holds
  // every run id below the start of the day after the migration.
  const base = Math.floor((Date.now() + 30 * 24 * HOUR) / HOUR) * HOUR;

  it('creates the current period and those ahead, once', async () => {
    const first = await fx.store.maintainEventPartitions({ periodMs: HOUR, ahead: 2, now: base });
    expect(first.created).toEqual([0, 1, 2].map((n) => periodPartitionName(base + n * HOUR)));
    expect(first.created[0]).toMatch(/^cyclone_events_p\d{8}_\d{6}$/);
    expect(first.deferred).toEqual([]);
    const bounds = await partitions(fx);
    expect(bounds.get(first.created[0]!)).toBe(
      `FOR VALUES FROM ('${periodBound(base)}') TO ('${periodBound(base + HOUR)}')`,
    );
    expect(bounds.get('cyclone_events_default')).toBe('DEFAULT');
    const again = await fx.store.maintainEventPartitions({ periodMs: HOUR, ahead: 2, now: base });
    expect(again).toEqual({ created: [], dropped: [], compacted: [], deferred: [] });
  });

  it('routes a run’s events to its period, and reads them back as one history', async () => {
    const runId = await cancelled(fx, base + 10 * 60_000);
    const [period] = (await fx.store.maintainEventPartitions({ periodMs: HOUR, now: base }))
      .created;
    expect(period).toBeUndefined(); // made by the first test
    expect(await eventTables(fx, runId)).toEqual([
      expect.stringMatching(/^cyclone_events_p\d{8}_\d{6}$/),
    ]);
    expect(await fx.events(runId)).toEqual([
      ['run_submitted', null, 'running', 'submit'],
      ['step_cancelled_cancel', 'available', 'cancelled', 'cancel'],
      ['run_cancelled', 'running', 'cancelled', 'cancel'],
    ]);
    expect((await fx.store.getRun(runId))?.state).toBe('cancelled');
  });

  it('drops a period once retention deleted its runs, and keeps one that still has a run', async () => {
    const later = base + 2 * HOUR;
    const gone = await cancelled(fx, base + HOUR + 60_000);
    const kept = await cancelled(fx, later + 60_000);
    // A workflow run still running in the later period keeps that period.
    const live = {
      ...runOfDefinition(workflow('partition-wf').task('a', 'partition.a').build(), 'null'),
      id: uuidv7(later + 120_000),
    };
    await fx.submit(live);
    // Stored events of the live run: a pause and a resume.
    await fx.store.pauseRun(live.id);
    await fx.store.resumeRun(live.id);
    const liveHistory = await fx.events(live.id);
    const now = later + 3 * HOUR;

    // The periods have ended, but their runs are still stored: nothing is dropped.
    const before = await fx.store.maintainEventPartitions({ periodMs: HOUR, now, compactRuns: 0 });
    expect(before.dropped).toEqual([]);

    // Retention deletes every finished run (the live one stays), their events stay in their periods.
    expect(await fx.store.deleteFinishedRuns(0)).toBeGreaterThanOrEqual(3);
    expect(await eventTables(fx, gone)).toHaveLength(1);

    const pass = await fx.store.maintainEventPartitions({ periodMs: HOUR, now, compactRuns: 0 });
    expect(pass.deferred).toEqual([]);
    // The first two periods (the first test's run and `gone`) are dropped; the later one is kept.
    expect(pass.dropped).toHaveLength(2);
    const left = await partitions(fx);
    for (const name of pass.dropped) expect(left.has(name)).toBe(false);
    expect(await eventTables(fx, gone)).toEqual([]);
    // The deleted run of the kept period keeps its events until its period goes.
    expect(await eventTables(fx, kept)).toHaveLength(1);
    expect((await fx.store.getRun(live.id))?.state).toBe('running');
    // Dropping deleted no row: the table's partitions have no dead tuples to vacuum.
    const [dead] = await fx.query<{ n: number }>(
      `SELECT coalesce(sum(n_dead_tup), 0)::int AS n FROM pg_stat_user_tables
       WHERE relname LIKE 'cyclone\\_events\\_p%'`,
    );
    expect(dead!.n).toBe(0);

    // Compacted: the live run's events move to a fresh partition of the same range, the deleted
    // run's leave with the old one; the live run's history reads as before.
    const bound = left.get(periodPartitionName(later));
    expect(bound).toContain(periodBound(later));
    const compact = await fx.store.maintainEventPartitions({ periodMs: HOUR, now });
    expect(compact.deferred).toEqual([]);
    expect(compact.compacted).toEqual([`${periodPartitionName(later)}_kept`]);
    const after = await partitions(fx);
    expect(after.has(periodPartitionName(later))).toBe(false);
    expect(after.get(`${periodPartitionName(later)}_kept`)).toBe(bound);
    expect(await eventTables(fx, kept)).toEqual([]);
    expect(await eventTables(fx, live.id)).toEqual([`${periodPartitionName(later)}_kept`]);
    expect(await fx.events(live.id)).toEqual(liveHistory);
    // Compacted once: a later pass leaves it, and drops it once its last run is gone.
    expect((await fx.store.maintainEventPartitions({ periodMs: HOUR, now })).compacted).toEqual([]);
    await fx.store.cancelRun(live.id);
    expect(await fx.store.deleteFinishedRuns(0)).toBe(1);
    expect((await fx.store.maintainEventPartitions({ periodMs: HOUR, now })).dropped).toEqual([
      `${periodPartitionName(later)}_kept`,
    ]);
  });
});
