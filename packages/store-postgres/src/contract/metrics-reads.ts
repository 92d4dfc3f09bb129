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
  /**
   * Also report each limited kind's concurrency cap and rate limit (up to `kindLimit` kinds):
   * the ready steps each holds back and how full it is.
   * @defaultValue false
   */
  readonly limits?: boolean;
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
  /**
   * For a kind under fair share, its concurrency keys with claimable steps (steps without a key
   * not counted), over at most `countLimit` claimable steps; null for a kind not under fair share.
   */
  readonly fairShareKeys: number | null;
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

/** One flow limit of a kind (a concurrency cap or a rate limit), as it stands now. */
export interface FlowLimitMetrics {
  /**
   * Ready steps of the kind that the limit holds back now: per group (the concurrency key under
   * `perKey`, keyless steps as one group; else the kind), those beyond the places the group's
   * running steps (a cap) or starts in the window (a rate limit) leave. Counted over at most
   * `countLimit` ready steps.
   */
  readonly waiting: number;
  /**
   * How full the limit is: running steps over `max` (a cap), or starts within the period over
   * `limit` (a rate limit), of the kind, or of its fullest key under `perKey`. 1 is full; above 1
   * after a limit was lowered below what runs.
   */
  readonly saturation: number;
}

/** A limited kind's limits, each null when the kind has none of that sort. */
export interface KindLimitMetrics {
  readonly kind: string;
  readonly concurrency: FlowLimitMetrics | null;
  readonly rate: FlowLimitMetrics | null;
}

/** What the database-side gauges of `/metrics` read, in one round trip. */
export interface MetricsSnapshot {
  /** One entry per kind reported, by kind name. */
  readonly queues: readonly KindQueueMetrics[];
  /** One entry per DLQ reason (all four, zero included). */
  readonly exhausted: readonly ExhaustedReasonMetrics[];
  /** One entry per run state (zero included) when `runs` was asked for; else empty. */
  readonly runs: readonly RunStateMetrics[];
  /** One entry per limited kind, by kind name, when `limits` was asked for; else empty. */
  readonly limits: readonly KindLimitMetrics[];
}

/** The reads behind Cyclone's database gauges (worker and server `/metrics` alike). */
export interface MetricsReads {
  /**
   * Reads each kind's queue (available, ready, oldest ready age), the DLQ's size per reason and,
   * when asked, runs by state, in one statement served by the partial indexes on available and
   * discarded steps; and when asked each limited kind's limits, in a second one served by the
   * indexes of ready and running steps and of rate-limit starts. Meant to run at scrape time; every step count is bounded by `countLimit` and
   * the kinds by `kinds` and `kindLimit`, so a scrape stays cheap under a backlog.
   */
  collectMetrics(query?: MetricsQuery): Promise<MetricsSnapshot>;
}
