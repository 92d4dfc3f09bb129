/** How many runs are in one state. */
export interface RunStateCount {
  readonly state: string;
  readonly count: number;
}

/** How many discarded steps carry one reason (error kind): the DLQ's size by reason. */
export interface ExhaustedReasonCount {
  readonly reason: string;
  readonly count: number;
}

/** The available steps of one handler kind. */
export interface QueueGauge {
  readonly kind: string;
  /** Steps in `available`, whether their time has come or not (backoff, snooze, scheduled). */
  readonly depth: number;
  /** Of those, the ones whose `scheduled_at` has passed: claimable now. */
  readonly ready: number;
  /** How long the oldest claimable step has waited past its `scheduled_at`, in seconds; 0 if none. */
  readonly oldestReadySeconds: number;
}

/** Gauges of the whole engine, read from the database in one snapshot. */
export interface EngineGauges {
  readonly runs: readonly RunStateCount[];
  readonly exhausted: readonly ExhaustedReasonCount[];
  readonly queues: readonly QueueGauge[];
}

/** Reads for monitoring; each is an aggregate over the tables, so call it at scrape time only. */
export interface MetricsReads {
  /** Runs by state, the DLQ by reason, and the queue of each handler kind. */
  engineGauges(): Promise<EngineGauges>;
}
