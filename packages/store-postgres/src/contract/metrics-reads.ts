import type { RunState } from '@cyclone/core';
import type { ExhaustedReason } from './operator-store.js';

/** What {@link MetricsReads.collectMetrics} reports on, and how far it counts. */
export interface MetricsQuery {
  /** Handler kinds always reported, each one present in the result (zero when nothing waits). */
  readonly kinds?: readonly string[];
  /**
   * Also report the kinds that registered workers handle and every kind that has available steps
   * (found by a walk of the claim index), up to `kindLimit` of them.
   * @defaultValue true when `kinds` is not given, else false
   */
  readonly discoverKinds?: boolean;
  /**
   * Most kinds found by `discoverKinds`, so a scrape stays bounded however many kinds there are.
   * @defaultValue 100
   */
  readonly kindLimit?: number;
  /**
   * Most rows counted per kind (each queue count) and per reason (DLQ size): a count stops there,
   * so a scrape costs at most this many index entries a series even with a huge backlog. A gauge
   * that reads exactly this value means "at least".
   * @defaultValue 100 000
   */
  readonly countLimit?: number;
  /**
   * Also count runs by state. Unbounded: the runs table has no index on its state (so that a
   * run's moves stay HOT updates), and the count reads the whole table.
   * @defaultValue false
   */
  readonly runs?: boolean;
}

/** The queue of one handler kind: its steps in `available`. */
export interface KindQueueMetrics {
  readonly kind: string;
  /**
   * Available steps, whether their time has come or not (waiting out a backoff, a snooze or a
   * delay), counted up to `countLimit`.
   */
  readonly available: number;
  /** Of those, the ones whose time has come (`scheduled_at` passed), counted up to `countLimit`. */
  readonly ready: number;
  /** Seconds since the oldest ready step became ready, by the database clock; 0 when none is. */
  readonly oldestReadyAgeSeconds: number;
}

/** The DLQ's size for one reason. */
export interface ExhaustedReasonMetrics {
  readonly reason: ExhaustedReason;
  /** Discarded steps with this reason, counted up to `countLimit`. */
  readonly steps: number;
}

/** How many runs are in one state. */
export interface RunStateMetrics {
  readonly state: RunState;
  readonly runs: number;
}

/** What the database-side gauges of `/metrics` read, in one round trip. */
export interface MetricsSnapshot {
  /** One entry per kind reported, by kind name. */
  readonly queues: readonly KindQueueMetrics[];
  /** One entry per DLQ reason (all four, zero included). */
  readonly exhausted: readonly ExhaustedReasonMetrics[];
  /** One entry per run state (zero included) when `runs` was asked for; else empty. */
  readonly runs: readonly RunStateMetrics[];
}

/** The reads behind Cyclone's database gauges (worker and server `/metrics` alike). */
export interface MetricsReads {
  /**
   * Reads each kind's queue (available, ready, oldest ready age), the DLQ's size per reason and,
   * when asked, runs by state, in one statement served by the partial indexes on available and
   * discarded steps. Meant to run at scrape time; every step count is bounded by `countLimit` and
   * the kinds by `kinds` and `kindLimit`, so a scrape stays cheap under a backlog.
   */
  collectMetrics(query?: MetricsQuery): Promise<MetricsSnapshot>;
}
