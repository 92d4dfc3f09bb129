import type { WorkflowDefinition } from '@cyclone/core';
import type { SchemaCheck } from './schema-check.js';
import type { ScheduleMaintenance } from './schedule-store.js';

/** What one pass of {@link MaintenanceStore.fireDueWaits} did. */
export interface DueWaitsResult {
  /** Timers fired (`waiting_timer -> completed`). */
  readonly fired: number;
  /** Signal waits whose max wait lapsed (`waiting_signal -> completed`, `timedOut`). */
  readonly lapsed: number;
  /** Child nodes whose max wait lapsed (`waiting_child -> discarded`, their child runs cancelled). */
  readonly childrenLapsed: number;
}

/** How {@link MaintenanceStore.maintainEventPartitions} keeps the events' period partitions. */
export interface EventPartitionSettings {
  /** The length of a period, in milliseconds. @defaultValue one day */
  readonly periodMs?: number;
  /** Periods created ahead of the current one. @defaultValue 2 */
  readonly ahead?: number;
  /** The longest a creation or a drop waits for the table's lock, in milliseconds. @defaultValue 200 */
  readonly lockTimeoutMs?: number;
  /**
   * A past period that at most this many runs outlive is compacted once: their events move to a
   * fresh partition of the same range, and the others leave with the old one. @defaultValue 100
   */
  readonly compactRuns?: number;
  /** The time to plan from, in milliseconds since the epoch. @defaultValue `Date.now()` */
  readonly now?: number;
}

/** What one pass of {@link MaintenanceStore.maintainEventPartitions} did. */
export interface EventPartitionsResult {
  /** Partitions created, by name. */
  readonly created: readonly string[];
  /** Partitions dropped, by name, each with every event in it. */
  readonly dropped: readonly string[];
  /** Partitions made by compacting a period (`<period>_kept`), by name. */
  readonly compacted: readonly string[];
  /** What was left for a later pass, and why (a lock not granted in time, a missing right). */
  readonly deferred: readonly { readonly partition: string; readonly reason: string }[];
}

/** What {@link MaintenanceStore.failUnservedSteps} needs. */
export interface UnservedStepsSweep {
  /** Recorded as the claimant of the steps it fails. */
  readonly claimant: string;
  /** A worker whose registration is older than this counts as gone. */
  readonly livenessMs: number;
  /** How long a step may be available with no live worker for its kind. */
  readonly graceMs: number;
  /** Most steps failed in one pass. @defaultValue 100 */
  readonly limit?: number;
}

/**
 * What the scheduler's scanners need: leader election among replicas and the time-driven sweeps.
 * Every sweep is bounded per pass and safe to run again.
 */
export interface MaintenanceStore extends SchemaCheck, ScheduleMaintenance {
  /**
   * Takes or renews the named leader lease for `holder`; true while `holder` leads. Replicas call
   * it every interval, so a leader that dies is replaced once its lease expires. Taking a lease
   * that had lapsed records the gap since its last renewal: a downtime (decision 240).
   */
  attemptLeadership(name: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Gives up the named lease if `holder` has it: it ends now, and another may take it at once. */
  resignLeadership(name: string, holder: string): Promise<void>;
  /**
   * Stores workflow definitions by name and hash (the newest registration of a name wins), so that
   * any process can start them as child runs or schedule fires.
   */
  registerWorkflows(definitions: readonly WorkflowDefinition[]): Promise<void>;
  /**
   * The recovery sweep: steps whose lease expired go back to available (reclaims + 1, no attempt
   * charged, no backoff), or are discarded with `reclaim_limit` once reclaimed `maxReclaims`
   * times. Returns how many steps it moved.
   */
  reclaimExpired(limit?: number): Promise<number>;
  /**
   * Fails steps that no live worker can run (available for longer than `graceMs` while workers are
   * live and none handles the kind), discarded as permanent with an error naming the kind.
   * Returns how many steps it failed.
   */
  failUnservedSteps(sweep: UnservedStepsSweep): Promise<number>;
  /**
   * Re-drives the settlement outbox: settles up to `limit` runs whose steps ended in a statement
   * that marked them for settlement while the settlement itself did not happen (the completing
   * process crashed or lost its connection in between). Returns how many runs it settled.
   */
  settlePending(limit?: number): Promise<number>;
  /**
   * Fires due timers (`{ firedAt }`) and lapses due max waits (`timedOut: true`, a `wait_lapsed`
   * event; a child node is discarded and its child run cancelled), at most `limit` of each, each wait settled in one transaction with its run's lock.
   */
  fireDueWaits(limit?: number): Promise<DueWaitsResult>;
  /**
   * The run-deadline sweep: fails up to `limit` running runs past their deadline, discarding their
   * open, unpaused steps with error kind `deadline`. Returns how many runs it failed.
   */
  expireRunDeadlines(limit?: number): Promise<number>;
  /**
   * Retention: deletes up to `limit` finished runs that ended longer ago than `retentionMs`, with
   * their steps, events, signals and settlement markers. Returns how many runs it deleted.
   */
  deleteFinishedRuns(retentionMs: number, limit?: number): Promise<number>;
  /**
   * Keeps the period partitions of `cyclone_events` (events are partitioned by their run's id,
   * which is its creation time): creates the current period's partition and `ahead` more, and
   * drops each past period's partition, with every event in it, once no run of the period is
   * left (retention deleted them). A drop deletes no row, so it leaves nothing for vacuum.
   */
  maintainEventPartitions(settings?: EventPartitionSettings): Promise<EventPartitionsResult>;
  /**
   * Deletes up to `limit` expired entries of the result cache (outputs of cached task nodes past
   * their ttl). Returns how many it deleted.
   */
  deleteExpiredCache(limit?: number): Promise<number>;
  /**
   * Retention of the overview's counts: deletes up to `limit` rows of `cyclone_stats_minutes`
   * whose minute began longer ago than `keepMs`. Returns how many it deleted.
   */
  deleteOldStatsMinutes(keepMs: number, limit?: number): Promise<number>;
}
