/** The systems the bench compares. Cyclone is the subject; the others are its peers. */
export const systemNames = ['cyclone', 'graphile-worker', 'pg-boss', 'dbos'] as const;
export type SystemName = (typeof systemNames)[number];

/**
 * Each peer runs in its default configuration and in its fastest documented one. Cyclone has one
 * configuration (its defaults, with a pool of the shared size).
 */
export type ConfigName = 'default' | 'fast';

/** Workflow shapes of the workflow-steps measurement. */
export type WorkflowShape = 'chain' | 'diamond';

/** Steps in one run of each shape: a -> b -> c, and 1 root -> 8 parallel -> 1 join. */
export const stepsPerRun: Readonly<Record<WorkflowShape, number>> = { chain: 3, diamond: 10 };

/** The measurements, in the order they are run and reported. */
export const measureNames = [
  'enqueue',
  'throughput',
  'bound',
  'latency',
  'workflow',
  'depth',
  'memory',
  'fanout',
  'flow',
] as const;
export type MeasureName = (typeof measureNames)[number];

/** The flow-control settings measured against none (`measurements/flow.ts`). */
export const flowModes = ['kind-cap', 'key-cap', 'priority', 'fair-10', 'fair-10k'] as const;
export type FlowMode = (typeof flowModes)[number];

/**
 * The per-kind cap of the flow measurement: above what one worker holds claimed at once (its
 * concurrency plus a local queue of up to 500 steps claimed ahead, which count as running), so
 * the cap never binds and the figure is what the limited claim itself costs (decision 287).
 */
export const flowKindCap = 2_000;

/** How a worker under test is configured. */
/**
 * How Cyclone's client and worker connect in a run with `--pooler-url` (the other systems are
 * measured on direct connections only).
 */
export interface ConnectionConfig {
  /** `transaction` when the URL goes through a pooler in transaction mode. */
  readonly pooler?: 'transaction';
  /** Where the worker LISTENs (a direct URL), when not on its own connection. */
  readonly listenUrl?: string;
  /** The worker's `pollInterval`, when not its default. */
  readonly pollInterval?: string;
}

export interface WorkerConfig {
  /** Jobs (or steps) executed at once. */
  readonly concurrency: number;
  readonly config: ConfigName;
  /** Called by the no-op handler with the job's number as it starts (latency). */
  readonly onJobStart?: (i: number) => void;
  /** Which workflow shape the worker serves, when it serves workflows. */
  readonly shape?: WorkflowShape;
}

/** What the bench needs of each system. Every handler is a no-op. */
export interface SystemAdapter {
  readonly name: SystemName;
  /** Configurations this system is measured in. */
  readonly configs: readonly ConfigName[];
  /** Workflow shapes this system can run (an empty list skips the workflow measurement). */
  readonly shapes: readonly WorkflowShape[];
  /** A one-line description of each configuration, for the report. */
  describe(config: ConfigName, concurrency: number): string;
  /** Installs the system's schema in the (fresh) database; safe to call again. */
  setup(): Promise<void>;
  /** Enqueues `n` no-op jobs with the system's fastest documented bulk API. */
  bulkEnqueue(n: number): Promise<void>;
  /** Enqueues one no-op job numbered `i` with the system's ordinary single-job API. */
  enqueueOne(i: number): Promise<void>;
  /** Starts `n` runs of a workflow shape. */
  submitWorkflows(shape: WorkflowShape, n: number): Promise<void>;
  /** Starts a worker in this process. Resolves once it is listening or polling. */
  startWorker(config: WorkerConfig): Promise<void>;
  stopWorker(): Promise<void>;
  /** Finished jobs as the database shows them (compare with a baseline taken before). */
  countCompleted(): Promise<number>;
  /**
   * Jobs not finished yet, when the system can count them from small indexes; the drain then
   * counts `n - open` instead of scanning a table that may hold a million finished rows.
   */
  countOpenJobs?(): Promise<number>;
  /** Finished workflow runs of a shape, as the database shows them. */
  countWorkflowsCompleted(shape: WorkflowShape): Promise<number>;
  /**
   * Inserts `rows` finished jobs into the system's own tables in their finished state (for the
   * depth measurement), cloned with `INSERT ... SELECT generate_series` from one job that went
   * through the system for real.
   */
  fillFinished(rows: number): Promise<void>;
  /** Closes every pool and connection the adapter opened. */
  close(): Promise<void>;
}

/** What a runner process prints as its one JSON line. */
export interface RunnerResult {
  readonly bench: 1;
  readonly ok: boolean;
  readonly system: SystemName;
  readonly measure: string;
  readonly config?: ConfigName;
  /** The figure: jobs/s, steps/s, ms or MB depending on the measurement. */
  readonly value?: number;
  readonly unit?: string;
  /** Secondary figures (percentiles, sample counts, baseline RSS, whether a time cap hit). */
  readonly extra?: Record<string, number | string | boolean>;
  readonly error?: string;
}
