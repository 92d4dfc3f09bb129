import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { periodBound, periodPartitionName } from '../../src/maintenance/periods.js';
import { useStore, type StoreFixture } from '../fixture.js';
import { runAt } from './period-ids.js';

const fx = useStore();
const HOUR = 3_600_000;
/** The tables partitioned by period, in the order the scanner keeps them. */
const TABLES = ['cyclone_steps', 'cyclone_runs', 'cyclone_events'];

/** The partitions of `table`, by name, with their bounds. */
async function partitions(f: StoreFixture, table: string): Promise<Map<string, string>> {
  const rows = await f.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = $1::regclass`,
    [table],
  );
  return new Map(rows.map((r) => [r.name, r.bound]));
}

/** Where a run's row, its steps and its events sit, sorted. */
async function tablesOf(f: StoreFixture, runId: string): Promise<string[]> {
  const rows = await f.query<{ t: string }>(
    `SELECT tableoid::regclass::text AS t FROM cyclone_runs WHERE id = $1
     UNION SELECT tableoid::regclass::text FROM cyclone_steps WHERE run_id = $1
     UNION SELECT tableoid::regclass::text FROM cyclone_events WHERE run_id = $1
     ORDER BY 1`,
    [runId],
  );
  return rows.map((r) => r.t);
}

/** The three partitions of the period starting at `ms`, sorted as {@link tablesOf} sorts. */
const periodOf = (ms: number, suffix = '') =>
  ['cyclone_events', 'cyclone_runs', 'cyclone_steps'].map(
    (t) => periodPartitionName(t, ms) + suffix,
  );

/**
 * A job submitted at `ms` and cancelled: a discard and a cancel are its stored events; `signal`
 * sends it a signal first, which it never consumes, and submits it with a key named after it.
 */
async function cancelled(f: StoreFixture, ms: number, signal?: string): Promise<string> {
  const options = signal ? { idempotencyKey: `key-${signal}` } : {};
  const run = runAt(runOfJob('period.job', 'null', options), ms);
  await f.submit(run);
  if (signal) await f.store.signal({ runId: run.id, name: signal, payloadJson: '{}' });
  await f.store.cancelRun(run.id);
  return run.id;
}

describe('maintainPeriodPartitions', () => {
  // Periods far ahead of today, so the test's periods are its own: the initial partitions hold
  // every id below a bound a few days after the migration.
  const base = Math.floor((Date.now() + 30 * 24 * HOUR) / HOUR) * HOUR;

  it('creates the current period and those ahead for runs, steps and events, once', async () => {
    const first = await fx.store.maintainPeriodPartitions({ periodMs: HOUR, ahead: 2, now: base });
    expect(first.created).toEqual(
      TABLES.flatMap((t) => [0, 1, 2].map((n) => periodPartitionName(t, base + n * HOUR))),
    );
    expect(first.created[0]).toMatch(/^cyclone_steps_p\d{8}_\d{6}$/);
    expect(first.deferred).toEqual([]);
    for (const table of TABLES) {
      const bounds = await partitions(fx, table);
      expect(bounds.get(periodPartitionName(table, base))).toBe(
        `FOR VALUES FROM ('${periodBound(base)}') TO ('${periodBound(base + HOUR)}')`,
      );
      expect(bounds.get(`${table}_default`)).toBe('DEFAULT');
    }
    // A steps' partition holds a fan-out's items unique, and takes the tables' storage settings.
    const steps = periodPartitionName('cyclone_steps', base);
    const [index] = await fx.query<{ def: string }>(
      `SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index
       WHERE indrelid = $1::regclass AND indisunique AND NOT indisprimary`,
      [steps],
    );
    expect(index?.def).toContain('(parent_step_id, item_index) WHERE (parent_step_id IS NOT NULL)');
    const [options] = await fx.query<{ options: string[] }>(
      'SELECT reloptions AS options FROM pg_class WHERE oid = $1::regclass',
      [steps],
    );
    expect(options?.options).toContain('fillfactor=50');
    const again = await fx.store.maintainPeriodPartitions({ periodMs: HOUR, ahead: 2, now: base });
    expect(again).toEqual({ created: [], dropped: [], compacted: [], deferred: [] });
  });

  it('keeps a run, its steps and its events in its period, where every reader finds them', async () => {
    const def = workflow('period-read').task('a', 'period.a').task('b', 'period.b').build();
    const run = runAt(runOfDefinition(def, '{"n":1}'), base + 10 * 60_000);
    await fx.submit(run);
    const [a] = await fx.store.claim({
      kinds: ['period.a'],
      limit: 1,
      workerId: 'w',
      leaseMs: 60_000,
    });
    await fx.store.complete([{ stepId: a!.id, claimToken: a!.claimToken, outputJson: '7' }]);
    await fx.store.cancelRun(run.id);
    expect(await tablesOf(fx, run.id)).toEqual(periodOf(base));

    expect((await fx.store.getRun(run.id))?.state).toBe('cancelled');
    expect((await fx.store.getRuns([run.id])).map((r) => r.id)).toEqual([run.id]);
    const page = await fx.store.listRuns({ workflow: 'period-read' });
    expect(page.runs.map((r) => r.id)).toEqual([run.id]);
    const steps = await fx.store.listSteps(run.id);
    expect(steps.map((s) => [s.node, s.state]).sort()).toEqual([
      ['a', 'completed'],
      ['b', 'cancelled'],
    ]);
    expect(await fx.store.nodeOutput(run.id, 'a')).toEqual({ state: 'completed', output: 7 });
    expect((await fx.events(run.id)).map((e) => e[0])).toEqual([
      'run_submitted',
      'step_started',
      'step_completed',
      'step_cancelled_cancel',
      'run_cancelled',
    ]);
  });

  it('drops a period once every run of it ended longer ago than the retention, and keeps one with a live run', async () => {
    const later = base + 2 * HOUR;
    // A signal of a run that leaves with its period leaves with it.
    const gone = await cancelled(fx, base + HOUR + 60_000, 'late');
    const kept = await cancelled(fx, later + 60_000);
    // A workflow run still running in the later period keeps that period.
    const live = runAt(
      runOfDefinition(workflow('period-wf').task('a', 'period.live').build(), 'null'),
      later + 120_000,
    );
    await fx.submit(live);
    expect(await fx.query('SELECT 1 FROM cyclone_signals WHERE run_id = $1', [gone])).toHaveLength(
      1,
    );
    expect(await fx.query('SELECT 1 FROM cyclone_run_keys WHERE run_id = $1', [gone])).toHaveLength(
      1,
    );
    const now = later + 3 * HOUR;

    // Retention deletes no row of a period: its runs leave with the period's partitions.
    expect(await fx.store.deleteFinishedRuns(0)).toBe(0);
    expect(await tablesOf(fx, gone)).toEqual(periodOf(base + HOUR));

    // The periods have ended, but their runs ended within the retention: nothing is dropped.
    const within = await fx.store.maintainPeriodPartitions({
      periodMs: HOUR,
      now,
      retentionMs: HOUR,
      compactRuns: 0,
    });
    expect(within.dropped).toEqual([]);
    // Without a retention, history is kept: a period with a run is never dropped.
    const kept2 = await fx.store.maintainPeriodPartitions({ periodMs: HOUR, now, compactRuns: 0 });
    expect(kept2.dropped).toEqual([]);

    const pass = await fx.store.maintainPeriodPartitions({
      periodMs: HOUR,
      now,
      retentionMs: 0,
      compactRuns: 0,
    });
    expect(pass.deferred).toEqual([]);
    // The first two periods go, each steps first, then runs, then events; the later one stays.
    expect(pass.dropped).toEqual(
      [base, base + HOUR].flatMap((ms) => TABLES.map((t) => periodPartitionName(t, ms))),
    );
    for (const table of TABLES) {
      const left = await partitions(fx, table);
      for (const name of pass.dropped) expect(left.has(name)).toBe(false);
      expect(left.has(periodPartitionName(table, later))).toBe(true);
    }
    expect(await tablesOf(fx, gone)).toEqual([]);
    expect(await fx.store.getRun(gone)).toBeUndefined();
    expect(await fx.query('SELECT 1 FROM cyclone_signals WHERE run_id = $1', [gone])).toEqual([]);
    // Its key is free again: a new submission with it makes a new run.
    expect(await fx.query('SELECT 1 FROM cyclone_run_keys WHERE run_id = $1', [gone])).toEqual([]);
    // The later period keeps its ended run too, until the period goes.
    expect(await tablesOf(fx, kept)).toEqual(periodOf(later));
    expect((await fx.store.getRun(live.id))?.state).toBe('running');
    // Dropping deleted no row: no partition of the three tables counts a deleted tuple.
    const [deleted] = await fx.query<{ n: number }>(
      `SELECT coalesce(sum(n_tup_del), 0)::int AS n FROM pg_stat_user_tables
       WHERE relname ~ '^cyclone_(runs|steps|events)_'`,
    );
    expect(deleted!.n).toBe(0);
  });

  it('compacts a period that a few runs outlive, deletes each as its retention ends, and drops the rest with the last', async () => {
    const later = base + 2 * HOUR;
    const now = later + 3 * HOUR;
    const [live] = (await fx.store.listRuns({ workflow: 'period-wf' })).runs;
    const second = runAt(runOfJob('period.second', 'null'), later + 180_000);
    await fx.submit(second);
    await fx.store.pauseRun(live!.id);
    await fx.store.resumeRun(live!.id);
    const liveHistory = await fx.events(live!.id);
    const bounds = (await partitions(fx, 'cyclone_runs')).get(
      periodPartitionName('cyclone_runs', later),
    );

    // Two runs outlive the period: its partitions are compacted, the cancelled run leaves.
    const compact = await fx.store.maintainPeriodPartitions({
      periodMs: HOUR,
      now,
      retentionMs: 0,
    });
    expect(compact.deferred).toEqual([]);
    expect(compact.compacted).toEqual(TABLES.map((t) => `${periodPartitionName(t, later)}_kept`));
    expect(
      (await partitions(fx, 'cyclone_runs')).get(
        `${periodPartitionName('cyclone_runs', later)}_kept`,
      ),
    ).toBe(bounds);
    expect(await tablesOf(fx, live!.id)).toEqual(periodOf(later, '_kept'));
    expect(await fx.events(live!.id)).toEqual(liveHistory);
    const [gone] = await fx.query<{ id: string }>(
      `SELECT id FROM cyclone_runs WHERE id >= $1 AND id < $2 AND state = 'cancelled'`,
      [periodBound(later), periodBound(later + HOUR)],
    );
    expect(gone).toBeUndefined();

    // Compacted once: the second run ends and is deleted row by row, the partitions stay.
    await fx.store.cancelRun(second.id);
    const next = await fx.store.maintainPeriodPartitions({ periodMs: HOUR, now, retentionMs: 0 });
    expect(next).toEqual({ created: [], dropped: [], compacted: [], deferred: [] });
    expect(await tablesOf(fx, second.id)).toEqual([]);

    // The live run finishes in its kept partitions, and they leave with it.
    const [a] = await fx.store.claim({
      kinds: ['period.live'],
      limit: 1,
      workerId: 'w',
      leaseMs: 60_000,
    });
    await fx.store.complete([{ stepId: a!.id, claimToken: a!.claimToken, outputJson: '1' }]);
    expect((await fx.store.getRun(live!.id))?.state).toBe('completed');
    const last = await fx.store.maintainPeriodPartitions({ periodMs: HOUR, now, retentionMs: 0 });
    expect(last.dropped).toEqual(TABLES.map((t) => `${periodPartitionName(t, later)}_kept`));
    expect(await tablesOf(fx, live!.id)).toEqual([]);
  });
});
