import type {
  PeriodPartitionSettings,
  PeriodPartitionsResult,
} from '../contract/maintenance-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { setLockTimeout } from '../db/lock-timeout.js';
import { stepsOfRuns } from '../db/steps-of-run.js';
import { quoteIdent } from '../db/tables.js';
import { deleteExpiredKeptRuns } from '../tables/periods/delete-expired-kept-runs.js';
import { anyMovingStepInIdRange } from '../tables/periods/any-moving-step-in-id-range.js';
import { deletePeriodLeftovers } from '../tables/periods/delete-period-leftovers.js';
import { listPartitions, type PartitionRow } from '../tables/periods/list-partitions.js';
import { liveRunsInIdRange } from '../tables/periods/live-runs-in-id-range.js';
import { anyRunInIdRange } from '../tables/runs/any-run-in-id-range.js';
import { TerminalRunStates } from '../tables/transitions/terminal-states.js';
import {
  parseInitialBound,
  parsePeriodBounds,
  periodBound,
  periodPartitionName,
  type PeriodBounds,
} from './periods.js';

/** A period's length by default: a UTC day, one partition of each table. */
export const PeriodMs = 86_400_000;
/** Periods whose partitions are made ahead of the current one, by default. */
export const PeriodsAhead = 2;
/** The longest a partition's creation or drop waits for its table's lock by default (decision 323). */
export const PeriodLockTimeoutMs = 200;
/** A past period that at most this many runs outlive is compacted once, by default. */
export const CompactRunsAtMost = 100;

/**
 * The tables partitioned by their run's period, in the order their partitions are locked (the
 * claim's: steps, then runs; the other order deadlocked with claims).
 */
const TABLES = [
  { table: 'cyclone_steps', parent: 'steps' },
  { table: 'cyclone_runs', parent: 'runs' },
  { table: 'cyclone_events', parent: 'events' },
] as const;

type PeriodTable = (typeof TABLES)[number];

/** A past period: its range and the partition each table has for it. */
interface Period extends PeriodBounds {
  readonly partitions: Map<PeriodTable, string>;
  /** Compacted once already (`_kept` partitions): never compacted again. */
  readonly kept: boolean;
}

/**
 * Keeps the period partitions of `cyclone_runs`, `cyclone_steps` and `cyclone_events` (decisions
 * 320 and 347): creates each table's partitions of the current period and `ahead` more (a steps'
 * partition with its unique index of a fan-out's items), and drops a past period's partitions,
 * with every row in them, once the period ended a period ago and every run of it ended longer ago
 * than `retentionMs`: steps, then runs, then events, each drop its own transaction under a short
 * lock timeout, which looks again under the table's lock and keeps the period if a run of it came
 * alive. Nothing is deleted row by row, so nothing is left for vacuum. A period that at most
 * `compactRuns` runs outlive (a long wait) is compacted once: its survivors' rows move to fresh
 * `_kept` partitions of the same range and the rest leave with the old ones; the survivors are then
 * deleted one by one as their own retention ends, and the `_kept` partitions dropped with the last.
 * A period whose runs live in the initial or the default partition (events partitioned before
 * runs were) keeps its events' partition until retention has deleted those runs. What a busy
 * table deferred is left to a later pass. Safe to run again and from any replica.
 */
export async function maintainPeriodPartitions(
  db: SqlRunner,
  settings: PeriodPartitionSettings = {},
): Promise<PeriodPartitionsResult> {
  const periodMs = settings.periodMs ?? PeriodMs;
  const ahead = settings.ahead ?? PeriodsAhead;
  const lockTimeoutMs = settings.lockTimeoutMs ?? PeriodLockTimeoutMs;
  const compactRuns = settings.compactRuns ?? CompactRunsAtMost;
  const retentionMs = settings.retentionMs ?? null;
  const now = settings.now ?? Date.now();
  if (!Number.isSafeInteger(periodMs) || periodMs < 1_000) {
    throw new RangeError(
      `period partitions: periodMs must be a whole number >= 1000, got ${periodMs}`,
    );
  }
  if (retentionMs !== null && (!Number.isSafeInteger(retentionMs) || retentionMs < 0)) {
    throw new RangeError(
      `period partitions: retentionMs must be a whole number >= 0, got ${retentionMs}`,
    );
  }
  const result = {
    created: [] as string[],
    dropped: [] as string[],
    compacted: [] as string[],
    deferred: [] as { partition: string; reason: string }[],
  };
  const current = Math.floor(now / periodMs) * periodMs;
  const until = current + (ahead + 1) * periodMs;
  const past = new Map<number, Period>();

  for (const table of TABLES) {
    const partitions = await listPartitions(db, db.tables[table.parent]);
    // A table that is not partitioned (a schema before the migration) has nothing to keep.
    const covered = coveredUntil(partitions);
    if (covered === undefined) continue;
    const options = partitions.find((p) => p.bound === 'DEFAULT')?.options ?? [];
    // Periods the partitions missed (no scheduler ran) are not filled in: their rows are in the
    // default partition, which a partition over them would have to take in.
    let from = Math.max(covered, current);
    while (from < until) {
      const to = (Math.floor(from / periodMs) + 1) * periodMs;
      const name = periodPartitionName(table.table, from);
      const reason = await createPeriod(db, table, name, { from, to }, options, lockTimeoutMs);
      if (reason === undefined) result.created.push(name);
      else result.deferred.push({ partition: name, reason });
      from = to;
    }
    for (const { name, bound } of partitions) {
      const period = parsePeriodBounds(bound);
      if (!period || period.to + periodMs > now) continue;
      const kept = name.endsWith(KEPT_SUFFIX);
      const key = period.from * 2 + (kept ? 1 : 0);
      const found = past.get(key) ?? { ...period, kept, partitions: new Map() };
      found.partitions.set(table, name);
      past.set(key, found);
    }
  }

  for (const period of [...past.values()].sort((a, b) => a.from - b.from)) {
    const range = { from: periodBound(period.from), to: periodBound(period.to) };
    const terminalStates = TerminalRunStates;
    // A period whose runs have their own partition leaves once retention is past all of them; a
    // period of events alone, once retention has deleted its runs from wherever they are.
    const ofRuns = period.partitions.has(RUNS);
    const live: LiveRuns = (tx, limit) =>
      liveRunsInIdRange(tx, {
        ...range,
        retentionMs: ofRuns ? retentionMs : null,
        terminalStates,
        limit,
      });
    // A look without the lock first: a period that still has runs costs no lock.
    const left = (await live(db, compactRuns + 1)).length;
    if (left === 0) {
      await dropPeriod(db, period, range, lockTimeoutMs, result);
    } else if (period.kept && retentionMs !== null) {
      await deleteExpiredKeptRuns(db, { ...range, retentionMs, terminalStates });
    } else if (left <= compactRuns && !period.kept) {
      const reason = await compactPeriod(db, period, range, live, compactRuns, lockTimeoutMs);
      if (reason === undefined) {
        for (const name of period.partitions.values()) result.compacted.push(name + KEPT_SUFFIX);
      } else {
        result.deferred.push({ partition: [...period.partitions.values()].join(', '), reason });
      }
    }
  }
  return result;
}

const RUNS = TABLES[1];

/** The runs of a period that retention keeps, up to `limit`. */
type LiveRuns = (tx: SqlRunner, limit: number) => Promise<string[]>;

/** The end of what the initial and period partitions cover, or undefined for no partitions. */
function coveredUntil(partitions: readonly PartitionRow[]): number | undefined {
  let covered: number | undefined;
  for (const { bound } of partitions) {
    const to = parsePeriodBounds(bound)?.to ?? parseInitialBound(bound);
    if (to !== undefined) covered = Math.max(covered ?? 0, to);
  }
  return covered;
}

/** The name a compacted period's partitions take: it is compacted once. */
const KEPT_SUFFIX = '_kept';

/** A drop rolled back because a run of the period is alive: not a failure, nothing to report. */
class PeriodKept extends Error {}

/**
 * The DDL that makes `name` the partition of `table` over `range`, with the default partition's
 * storage parameters and, for steps, the unique index of a fan-out's items (which the parent
 * cannot have). DDL takes no bound parameters: names are quoted, the bounds made from numbers and
 * the storage parameters read from the catalog, never from input.
 */
function partitionDdl(
  db: SqlRunner,
  table: PeriodTable,
  name: string,
  range: { from: string; to: string },
  options: readonly string[],
): string[] {
  const t = db.tables;
  const qualified = `${quoteIdent(t.schema)}.${quoteIdent(name)}`;
  const storage = options.length > 0 ? ` WITH (${options.join(', ')})` : '';
  const ddl = [
    `CREATE TABLE ${qualified} PARTITION OF ${t[table.parent]}
     FOR VALUES FROM ('${range.from}') TO ('${range.to}')${storage}`,
  ];
  if (table === TABLES[0]) {
    ddl.push(
      `CREATE UNIQUE INDEX ${quoteIdent(`${name}_parent_idx`)} ON ${qualified}
       (parent_step_id, item_index) WHERE parent_step_id IS NOT NULL`,
    );
  }
  return ddl;
}

/** Creates one period's partition of `table`; returns why it could not, or undefined. */
async function createPeriod(
  db: SqlRunner,
  table: PeriodTable,
  name: string,
  period: PeriodBounds,
  options: readonly string[],
  lockTimeoutMs: number,
): Promise<string | undefined> {
  const range = { from: periodBound(period.from), to: periodBound(period.to) };
  try {
    await db.transaction(async (tx) => {
      await setLockTimeout(tx, lockTimeoutMs);
      for (const ddl of partitionDdl(tx, table, name, range, options)) await tx.db.query(ddl);
    });
    return undefined;
  } catch (error) {
    return deferralReason(error);
  }
}

/**
 * Drops a period's partitions, steps, then runs, then events, each in its own transaction under
 * the lock timeout. The steps' transaction looks again under the steps' lock for a step moving
 * again (a retried run); the events' keeps decision 321's look for any run of the range left
 * anywhere. A deferred or kept drop stops the rest: a period's runs never leave before its steps.
 */
async function dropPeriod(
  db: SqlRunner,
  period: Period,
  range: { from: string; to: string },
  lockTimeoutMs: number,
  result: { dropped: string[]; deferred: { partition: string; reason: string }[] },
): Promise<void> {
  const t = db.tables;
  for (const table of TABLES) {
    const name = period.partitions.get(table);
    if (name === undefined) continue;
    try {
      await db.transaction(async (tx) => {
        await setLockTimeout(tx, lockTimeoutMs);
        if (table === TABLES[2]) {
          // Dropping a partition locks the table, then the partition: no event of the period can
          // be written from here on, and a run committed before this point is seen below.
          await tx.db.query(`DROP TABLE IF EXISTS ${quoteIdent(t.schema)}.${quoteIdent(name)}`);
          if (await anyRunInIdRange(tx, range)) throw new PeriodKept();
          return;
        }
        if (table === TABLES[0]) {
          // The steps' lock first, then a look that costs two partial indexes' root pages: a run
          // an operator retried since the look above has a step available or running again, and
          // keeps its period. Walking the period's runs again here would hold the lock that every
          // claim and completion waits for for as long as that walk (decision 436).
          await tx.db.query(`LOCK TABLE ${t.steps} IN ACCESS EXCLUSIVE MODE`);
          if (await anyMovingStepInIdRange(tx, range)) throw new PeriodKept();
        }
        // The runs' partition follows its steps': a run retried after that has no step to run.
        await tx.db.query(`DROP TABLE ${quoteIdent(t.schema)}.${quoteIdent(name)}`);
        if (table === RUNS) await deletePeriodLeftovers(tx, { ...range, keep: [] });
      });
      result.dropped.push(name);
    } catch (error) {
      if (!(error instanceof PeriodKept)) {
        result.deferred.push({ partition: name, reason: deferralReason(error) });
      }
      return;
    }
  }
}

/**
 * Compacts a period that a few runs outlive, in one transaction under the tables' locks (steps,
 * runs, events): each partition of the period is detached, a `_kept` partition of the same range
 * takes its place, the rows of the runs still alive are copied into it, and the old partitions are
 * dropped with the rows of every other run. The copy is of the survivors' rows only, so the locks
 * are held for the time of copying a few runs' history. A period of events alone keeps the events
 * of every run still stored.
 */
async function compactPeriod(
  db: SqlRunner,
  period: Period,
  range: { from: string; to: string },
  live: LiveRuns,
  compactRuns: number,
  lockTimeoutMs: number,
): Promise<string | undefined> {
  const t = db.tables;
  const q = (name: string) => `${quoteIdent(t.schema)}.${quoteIdent(name)}`;
  try {
    await db.transaction(async (tx) => {
      await setLockTimeout(tx, lockTimeoutMs);
      const tables = TABLES.filter((table) => period.partitions.has(table));
      for (const table of tables) {
        await tx.db.query(`LOCK TABLE ${t[table.parent]} IN ACCESS EXCLUSIVE MODE`);
      }
      // The survivors, under the locks: the runs retention keeps (of a period of events alone,
      // every run of its range still stored).
      const keep = await live(tx, compactRuns + 1);
      if (keep.length > compactRuns) throw new PeriodKept();
      for (const table of tables) {
        const old = period.partitions.get(table)!;
        const options = (await listPartitions(tx, t[table.parent])).find(
          (p) => p.bound === 'DEFAULT',
        )?.options;
        await tx.db.query(`ALTER TABLE ${t[table.parent]} DETACH PARTITION ${q(old)}`);
        for (const ddl of partitionDdl(tx, table, old + KEPT_SUFFIX, range, options ?? [])) {
          await tx.db.query(ddl);
        }
        // Each by an index of the old partition: the steps by their run (`stepsOfRuns`), the runs
        // by their key, the events by theirs.
        const survivors =
          table === RUNS
            ? 'id = ANY($1::uuid[])'
            : table === TABLES[0]
              ? stepsOfRuns(q(old), '$1::uuid[]')
              : 'run_id = ANY($1::uuid[])';
        await tx.db.query(
          `INSERT INTO ${t[table.parent]} SELECT * FROM ${q(old)} WHERE ${survivors}`,
          [keep],
        );
        await tx.db.query(`DROP TABLE ${q(old)}`);
      }
      if (period.partitions.has(RUNS)) await deletePeriodLeftovers(tx, { ...range, keep });
    });
    return undefined;
  } catch (error) {
    if (error instanceof PeriodKept) return 'more runs of the period came alive';
    return deferralReason(error);
  }
}

/** Why a creation or drop was left for later: a lock not granted in time, a missing right, ... */
function deferralReason(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === '55P03') return 'the table was busy (lock timeout)';
  return typeof code === 'string' ? `${message} (${code})` : message;
}
