import { ErrorKind, WaitBucketCount } from '@cyclone/core';
import type {
  KindQueueOverview,
  QueueOverviewQuery,
  StatsMinute,
  StatsMinutesQuery,
  WorkerOverviewQuery,
  WorkersOverview,
} from '../contract/overview-reads.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { readStatsMinutes } from '../tables/stats/read-stats-minutes.js';
import { readQueues } from './read-queues.js';
import { readSchedulerLeader } from './read-scheduler-leader.js';
import { readWorkers } from './read-workers.js';

/** Defaults of the overview's queries. */
export const OverviewDefaults = {
  kindLimit: 100,
  countLimit: 100_000,
  livenessMs: 30_000,
  recentMs: 3_600_000,
  heldLimit: 20,
  discardedWithinMs: 3_600_000,
} as const;

/**
 * How long the per-minute counts are kept: the scheduler's stats-retention scanner deletes older
 * minutes, and the longest window the overview serves is this long.
 */
export const StatsMinutesKeptMs = 24 * 3_600_000;

/** The scheduler's leader lease (the scheduler's `LEADER_LEASE`). */
const SchedulerLease = 'scheduler';

const Reasons = [
  ErrorKind.Retryable,
  ErrorKind.Permanent,
  ErrorKind.Deadline,
  ErrorKind.ReclaimLimit,
];

/** Each kind's queue now (see `OverviewReads.queueOverview`). */
export async function queueOverview(
  db: SqlRunner,
  query: QueueOverviewQuery = {},
): Promise<KindQueueOverview[]> {
  const rows = await readQueues(db, {
    kindLimit: query.kindLimit ?? OverviewDefaults.kindLimit,
    countLimit: query.countLimit ?? OverviewDefaults.countLimit,
    livenessMs: query.livenessMs ?? OverviewDefaults.livenessMs,
    discardedWithinMs: OverviewDefaults.discardedWithinMs,
    reasons: Reasons,
  });
  return rows.map((r) => ({
    kind: r.kind,
    available: r.available,
    ready: r.ready,
    running: r.running,
    waitingOnLimit: r.waiting_on_limit,
    scheduledLater: Math.max(0, r.available - r.ready),
    discardedLastHour: r.discarded_recently,
    oldestReadyAgeSeconds: Math.max(0, r.oldest_ready_age_seconds ?? 0),
    fairShare: r.fair_share
      ? {
          keys: r.fair_keys ?? 0,
          starvedKey: r.ready > 0 ? r.starved_key : null,
          starvedKeyless: r.ready > 0 && r.starved_key === null,
          starvedAgeSeconds: Math.max(0, r.oldest_ready_age_seconds ?? 0),
        }
      : null,
  }));
}

/** The recent workers and the scheduler's leader (see `OverviewReads.workerOverview`). */
export async function workerOverview(
  db: SqlRunner,
  query: WorkerOverviewQuery = {},
): Promise<WorkersOverview> {
  const rows = await readWorkers(db, {
    livenessMs: query.livenessMs ?? OverviewDefaults.livenessMs,
    recentMs: query.recentMs ?? OverviewDefaults.recentMs,
    heldLimit: query.heldLimit ?? OverviewDefaults.heldLimit,
  });
  const leader = await readSchedulerLeader(db, SchedulerLease);
  return {
    now: leader.now,
    workers: rows.map((r) => ({
      id: r.id,
      host: r.host,
      pid: r.pid,
      kinds: r.kinds,
      concurrency: r.concurrency,
      live: r.live,
      heldCount: r.held,
      heldSteps: r.held_steps.map((h) => ({ ...h, startedAt: new Date(h.startedAt) })),
      lastHeartbeatAt: r.last_seen_at,
      startedAt: r.started_at,
    })),
    leader:
      leader.holder === null
        ? null
        : {
            holder: leader.holder,
            active: leader.active === true,
            lastPassAt: leader.renewed_at!,
            expiresAt: leader.expires_at!,
            ledSince: leader.led_since!,
          },
  };
}

/** The window's minutes (see `OverviewReads.statsMinutes`). */
export async function statsMinutes(
  db: SqlRunner,
  query: StatsMinutesQuery,
): Promise<StatsMinute[]> {
  const rows = await readStatsMinutes(db, { windowMs: query.windowMs, kind: query.kind ?? null });
  return rows.map((r) => ({
    minute: r.minute,
    completed: r.completed,
    failed: r.failed,
    waitBuckets: r.wait_buckets ?? new Array<number>(WaitBucketCount).fill(0),
  }));
}
