/** What {@link OverviewReads.queueOverview} reports on, and how far it counts. */
export interface QueueOverviewQuery {
  /** Most kinds reported. @defaultValue 100 */
  readonly kindLimit?: number;
  /** Most steps counted per figure; a figure that reads exactly this means "at least". @defaultValue 100 000 */
  readonly countLimit?: number;
  /** A worker seen within this is live, and the kinds it handles are listed. @defaultValue 30 000 */
  readonly livenessMs?: number;
}

/** The queue of one handler kind, now. */
export interface KindQueueOverview {
  readonly kind: string;
  /** Steps in `available`, whether their time has come or not. */
  readonly available: number;
  /** Of those, the ones whose time has come: claimable now (or held back by a limit). */
  readonly ready: number;
  /** Steps of the kind running now. */
  readonly running: number;
  /** Ready steps that the kind's concurrency cap holds back now (0 without a cap). */
  readonly waitingOnLimit: number;
  /** Available steps whose time has not come: a delay, a backoff or a snooze. */
  readonly scheduledLater: number;
  /** Steps of the kind discarded (sent to the DLQ) within the last hour. */
  readonly discardedLastHour: number;
  /** Seconds since the oldest ready step became claimable (database clock); 0 when none is. */
  readonly oldestReadyAgeSeconds: number;
  /** How the keys of a kind under fair share wait; null for a kind not under fair share. */
  readonly fairShare: FairShareQueueOverview | null;
}

/**
 * The keys of a kind under fair share, now. The most-starved key is the one whose oldest ready
 * step is the oldest: its age is the kind's {@link KindQueueOverview.oldestReadyAgeSeconds}, and
 * the key says which tenant waits longest.
 */
export interface FairShareQueueOverview {
  /** Concurrency keys with claimable steps (steps without a key not counted), over at most `countLimit` steps. */
  readonly keys: number;
  /** The most-starved key; null when no step is ready or when it is the group of steps without a key. */
  readonly starvedKey: string | null;
  /** Whether the most-starved is the group of steps without a key. */
  readonly starvedKeyless: boolean;
  /** Seconds since the most-starved key's oldest ready step became claimable; 0 when none is. */
  readonly starvedAgeSeconds: number;
}

/** What {@link OverviewReads.workerOverview} lists. */
export interface WorkerOverviewQuery {
  /** A worker seen within this is live. @defaultValue 30 000 */
  readonly livenessMs?: number;
  /** Workers not seen for longer than this are left out. @defaultValue 3 600 000 (an hour) */
  readonly recentMs?: number;
  /** Most held steps listed per worker. @defaultValue 20 */
  readonly heldLimit?: number;
}

/** A step a worker holds (runs) now. */
export interface HeldStepOverview {
  readonly id: string;
  readonly runId: string;
  readonly node: string;
  readonly kind: string;
  readonly startedAt: Date;
}

/** A registered worker. */
export interface WorkerOverview {
  readonly id: string;
  /** Null for a worker of a version that did not record it. */
  readonly host: string | null;
  readonly pid: number | null;
  readonly kinds: readonly string[];
  readonly concurrency: number | null;
  /** Whether it refreshed its registration within the liveness. */
  readonly live: boolean;
  /** How many steps it holds now. */
  readonly heldCount: number;
  /** The first `heldLimit` of them, oldest first. */
  readonly heldSteps: readonly HeldStepOverview[];
  readonly lastHeartbeatAt: Date;
  readonly startedAt: Date;
}

/** The scheduler's leader lease. */
export interface SchedulerLeaderOverview {
  readonly holder: string;
  /** Whether the lease is held now; false once it expired or was given up. */
  readonly active: boolean;
  /** The leader's last pass: it renews the lease at the start of each. */
  readonly lastPassAt: Date;
  readonly expiresAt: Date;
  /** The start of its current unbroken leadership. */
  readonly ledSince: Date;
}

/** The workers and the scheduler leader, read together. */
export interface WorkersOverview {
  /** The database's clock when read, against which the times are to be compared. */
  readonly now: Date;
  /** Live workers first, then those that stopped refreshing within `recentMs`. */
  readonly workers: readonly WorkerOverview[];
  /** Null when no scheduler ever led. */
  readonly leader: SchedulerLeaderOverview | null;
}

/** What {@link OverviewReads.statsMinutes} reads. */
export interface StatsMinutesQuery {
  /** The window's length: this much of whole minutes, the current (partial) one the last. */
  readonly windowMs: number;
  /** Only this kind; all kinds added up when omitted. */
  readonly kind?: string;
}

/** One minute's throughput and queue wait, as workers flushed them. */
export interface StatsMinute {
  /** The minute's start (database clock). */
  readonly minute: Date;
  /** Successes recorded in the minute. */
  readonly completed: number;
  /** Failed attempts recorded in the minute (retried or discarded). */
  readonly failed: number;
  /** The queue waits of the steps started in the minute, in core's `WaitBucketCount` buckets. */
  readonly waitBuckets: readonly number[];
}

/** The reads behind the operators' overview: queues by kind, workers, throughput per minute. */
export interface OverviewReads {
  /**
   * Each kind's queue now, in one statement served by the partial indexes of available, running
   * and discarded steps; every count is bounded by `countLimit`, the kinds by `kindLimit`.
   */
  queueOverview(query?: QueueOverviewQuery): Promise<KindQueueOverview[]>;
  /** The workers seen recently, with the steps each holds, and the scheduler's leader. */
  workerOverview(query?: WorkerOverviewQuery): Promise<WorkersOverview>;
  /**
   * Every minute of a window, oldest first, zeros included: what workers flushed into
   * `cyclone_stats_minutes`, never a scan of the steps' history.
   */
  statsMinutes(query: StatsMinutesQuery): Promise<StatsMinute[]>;
}
