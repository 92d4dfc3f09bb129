import type {
  EventPartitionSettings,
  EventPartitionsResult,
} from '../contract/maintenance-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { setLockTimeout } from '../db/lock-timeout.js';
import { quoteIdent } from '../db/tables.js';
import { listEventPartitions } from '../tables/events/list-event-partitions.js';
import { anyRunInIdRange } from '../tables/runs/any-run-in-id-range.js';
import { countRunsInIdRange } from '../tables/runs/count-runs-in-id-range.js';
import {
  parseInitialBound,
  parsePeriodBounds,
  periodBound,
  periodPartitionName,
  type PeriodBounds,
} from './event-periods.js';

const DAY = 86_400_000;

/**
 * Keeps the period partitions of `cyclone_events` (decision 320): creates those of the current
 * period and `ahead` more, and drops each period's partition once the period ended a period ago
 * and no run of it is left (retention deleted them all). A period that at most `compactRuns` runs
 * outlive (a long wait) is compacted once: its survivors' events move to a fresh partition of
 * the same range and the rest are dropped with the old one. A drop takes the table's lock, finds
 * again under it that no run of the period exists (a run committed since the first look keeps
 * its events), and drops the partition with every event in it: no row is deleted, so nothing is
 * left for vacuum. Each creation and drop is its own transaction under a short lock timeout, so
 * a pass never queues the writers of events behind a long wait; what it could not do it leaves
 * to a later pass. Safe to run again and from any replica.
 */
export async function maintainEventPartitions(
  db: SqlRunner,
  settings: EventPartitionSettings = {},
): Promise<EventPartitionsResult> {
  const periodMs = settings.periodMs ?? DAY;
  const ahead = settings.ahead ?? 2;
  const lockTimeoutMs = settings.lockTimeoutMs ?? 200;
  const compactRuns = settings.compactRuns ?? 100;
  const now = settings.now ?? Date.now();
  if (!Number.isSafeInteger(periodMs) || periodMs < 1_000) {
    throw new RangeError(
      `event partitions: periodMs must be a whole number >= 1000, got ${periodMs}`,
    );
  }
  const partitions = await listEventPartitions(db);
  const periods: (PeriodBounds & { name: string })[] = [];
  let covered: number | undefined;
  for (const { name, bound } of partitions) {
    const period = parsePeriodBounds(bound);
    if (period) {
      periods.push({ name, ...period });
      covered = Math.max(covered ?? 0, period.to);
    } else {
      const initialTo = parseInitialBound(bound);
      if (initialTo !== undefined) covered = Math.max(covered ?? 0, initialTo);
    }
  }
  // A table that is not partitioned (a schema before the migration) has nothing to keep.
  if (covered === undefined) return { created: [], dropped: [], compacted: [], deferred: [] };

  const created: string[] = [];
  const dropped: string[] = [];
  const compacted: string[] = [];
  const deferred: { partition: string; reason: string }[] = [];
  const current = Math.floor(now / periodMs) * periodMs;
  const until = current + (ahead + 1) * periodMs;
  // Periods the partitions missed (no scheduler ran) are not filled in: their runs' events are in
  // the default partition, which a partition over them would have to take in.
  let from = Math.max(covered, current);
  while (from < until) {
    const to = (Math.floor(from / periodMs) + 1) * periodMs;
    const name = periodPartitionName(from);
    const reason = await createPeriod(db, name, { from, to }, lockTimeoutMs);
    if (reason === undefined) created.push(name);
    else deferred.push({ partition: name, reason });
    from = to;
  }

  for (const period of periods) {
    if (period.to + periodMs > now) continue;
    const range = { from: periodBound(period.from), to: periodBound(period.to) };
    // A look without the lock first: a period that still has runs costs no lock.
    const left = await countRunsInIdRange(db, { ...range, limit: compactRuns + 1 });
    if (left === 0) {
      const reason = await dropPeriod(db, period.name, range, lockTimeoutMs);
      if (reason === undefined) dropped.push(period.name);
      else if (reason !== KEPT) deferred.push({ partition: period.name, reason });
    } else if (left <= compactRuns && !period.name.endsWith(KEPT_SUFFIX)) {
      const kept = `${period.name}${KEPT_SUFFIX}`;
      const reason = await compactPeriod(db, period, kept, range, lockTimeoutMs);
      if (reason === undefined) compacted.push(kept);
      else deferred.push({ partition: period.name, reason });
    }
  }
  return { created, dropped, compacted, deferred };
}

/** The name a compacted period's partition takes: it is compacted once. */
const KEPT_SUFFIX = '_kept';

/** A drop rolled back because a run of the period appeared: not a failure, nothing to report. */
const KEPT = 'a run of the period exists';

class PeriodKept extends Error {}

/**
 * Creates one period's partition; returns why it could not, or undefined. DDL takes no bound
 * parameters: the name is quoted and the bounds are made from numbers, never from input.
 */
async function createPeriod(
  db: SqlRunner,
  name: string,
  period: PeriodBounds,
  lockTimeoutMs: number,
): Promise<string | undefined> {
  const t = db.tables;
  try {
    await db.transaction(async (tx) => {
      await setLockTimeout(tx, lockTimeoutMs);
      await tx.db.query(
        `CREATE TABLE IF NOT EXISTS ${quoteIdent(t.schema)}.${quoteIdent(name)} PARTITION OF ${t.events}
         FOR VALUES FROM ('${periodBound(period.from)}') TO ('${periodBound(period.to)}')`,
      );
    });
    return undefined;
  } catch (error) {
    return deferralReason(error);
  }
}

/** Drops one period's partition unless a run of the period exists under the lock. */
async function dropPeriod(
  db: SqlRunner,
  name: string,
  range: { from: string; to: string },
  lockTimeoutMs: number,
): Promise<string | undefined> {
  const t = db.tables;
  try {
    await db.transaction(async (tx) => {
      await setLockTimeout(tx, lockTimeoutMs);
      // Dropping a partition locks the table, then the partition: no event of the period can be
      // written from here on, and a run committed before this point is seen by the look below.
      await tx.db.query(`DROP TABLE IF EXISTS ${quoteIdent(t.schema)}.${quoteIdent(name)}`);
      if (await anyRunInIdRange(tx, range)) throw new PeriodKept(KEPT);
    });
    return undefined;
  } catch (error) {
    if (error instanceof PeriodKept) return KEPT;
    return deferralReason(error);
  }
}

/**
 * Compacts a period that a few runs outlive: in one transaction under the table's lock, the
 * partition is detached, a partition of the same range (`kept`) takes its place, the events of
 * the runs still stored are copied into it, and the old partition is dropped with the events of
 * every run already deleted. The copy is of the survivors' events only, so the lock is held for
 * the time of copying a few runs' history.
 */
async function compactPeriod(
  db: SqlRunner,
  period: PeriodBounds & { name: string },
  kept: string,
  range: { from: string; to: string },
  lockTimeoutMs: number,
): Promise<string | undefined> {
  const t = db.tables;
  const old = `${quoteIdent(t.schema)}.${quoteIdent(period.name)}`;
  const columns =
    'id, run_id, step_id, node, type, from_state, to_state, at, error_kind, detail, trigger';
  try {
    await db.transaction(async (tx) => {
      await setLockTimeout(tx, lockTimeoutMs);
      await tx.db.query(`ALTER TABLE ${t.events} DETACH PARTITION ${old}`);
      await tx.db.query(
        `CREATE TABLE ${quoteIdent(t.schema)}.${quoteIdent(kept)} PARTITION OF ${t.events}
         FOR VALUES FROM ('${range.from}') TO ('${range.to}')`,
      );
      await tx.db.query(
        `INSERT INTO ${t.events} (${columns})
         SELECT ${columns} FROM ${old}
         WHERE run_id IN (SELECT id FROM ${t.runs} WHERE id >= $1::uuid AND id < $2::uuid)`,
        [range.from, range.to],
      );
      await tx.db.query(`DROP TABLE ${old}`);
    });
    return undefined;
  } catch (error) {
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
