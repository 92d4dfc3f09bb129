import type { ExhaustedReason } from './operator-store.js';

/** What {@link QueueMetricsReads.collectQueueMetrics} reports on, and how far it counts. */
export interface QueueMetricsQuery {
  /**
   * The handler kinds to report, each one present in the result (zero when nothing waits). By
   * default every kind with available steps, found by a walk of the claim index.
   */
  readonly kinds?: readonly string[];
  /**
   * Most kinds reported when `kinds` is not given, so a scrape stays bounded however many kinds
   * there are.
   * @defaultValue 100
   */
  readonly kindLimit?: number;
  /**
   * Most rows counted per kind (queue depth) and per reason (DLQ size): a count stops there, so a
   * scrape costs at most this many index entries a series even with a huge backlog. A gauge that
   * reads exactly this value means "at least".
   * @defaultValue 100 000
   */
  readonly countLimit?: number;
}

/** The queue of one handler kind. */
export interface KindQueueMetrics {
  readonly kind: string;
  /** Available steps whose time has come (claimable now), counted up to `countLimit`. */
  readonly available: number;
  /** Seconds since the oldest of them became claimable; 0 when none is. */
  readonly oldestAgeSeconds: number;
}

/** The DLQ's size for one reason. */
export interface ExhaustedReasonMetrics {
  readonly reason: ExhaustedReason;
  /** Discarded steps with this reason, counted up to `countLimit`. */
  readonly steps: number;
}

/** What the database-side gauges of `/metrics` read, in one round trip. */
export interface QueueMetrics {
  /** One entry per kind, by kind name. */
  readonly queues: readonly KindQueueMetrics[];
  /** One entry per DLQ reason (all four, zero included). */
  readonly exhausted: readonly ExhaustedReasonMetrics[];
}

/** The reads behind Prometheus gauges: queue depth, oldest available age, DLQ size. */
export interface QueueMetricsReads {
  /**
   * Reads queue depth and oldest available age per kind, and the DLQ's size per reason, in one
   * statement served by the partial indexes on available and discarded steps. Meant to run at
   * scrape time (a worker's `metrics()`, the server's `GET /metrics`); every count is bounded by
   * `countLimit` and the kinds by `kinds` or `kindLimit`, so a scrape stays cheap under a backlog.
   */
  collectQueueMetrics(query?: QueueMetricsQuery): Promise<QueueMetrics>;
}
