/**
 * The fan-out measurement (Cyclone only): one run whose fan-out node expands a list of N items,
 * with or without a `maxParallel` limit, timed from the worker's start until the run completed, against the
 * time the same worker takes over N plain jobs. Reports milliseconds per item for both. The
 * handler counts the items running at once; more than the limit fails the measurement.
 */
import type { SystemAdapter } from '../shared/types.js';
import { drain } from './drain.js';

/** What the system runs for the fan-out measurement. */
export interface FanOutTarget {
  /**
   * Submits one run of list -> fanOut(maxParallel) over `n` items, starts a worker, waits until
   * the run completed and stops the worker. Resolves with the seconds from the worker's start and
   * the most item handlers that ran at once.
   */
  runFanOut(options: {
    n: number;
    /** Absent: no limit. */
    maxParallel: number | undefined;
    concurrency: number;
    capMs: number;
  }): Promise<{ seconds: number; highestRunning: number; completed: boolean }>;
}

export interface FanOutResult {
  /** Milliseconds per item of the fan-out run. */
  readonly fanOutMsPerItem: number;
  /** Milliseconds per job of the same worker over `n` plain jobs. */
  readonly jobMsPerItem: number;
  /** fan-out time per item / plain-job time per item. */
  readonly ratio: number;
  readonly highestRunning: number;
  readonly completed: boolean;
}

export async function fanOut(
  adapter: SystemAdapter & FanOutTarget,
  options: { n: number; maxParallel: number | undefined; concurrency: number; capMs: number },
): Promise<FanOutResult> {
  await adapter.bulkEnqueue(options.n);
  const jobs = await drain(adapter, {
    n: options.n,
    capMs: options.capMs,
    worker: { concurrency: options.concurrency, config: 'default' },
  });
  const run = await adapter.runFanOut(options);
  if (options.maxParallel !== undefined && run.highestRunning > options.maxParallel) {
    throw new Error(
      `${run.highestRunning} items ran at once, more than maxParallel ${options.maxParallel}`,
    );
  }
  const fanOutMsPerItem = (run.seconds * 1000) / options.n;
  const jobMsPerItem = (jobs.seconds * 1000) / Math.max(1, jobs.done);
  return {
    fanOutMsPerItem,
    jobMsPerItem,
    ratio: fanOutMsPerItem / jobMsPerItem,
    highestRunning: run.highestRunning,
    completed: run.completed,
  };
}

/** Whether an adapter can run the fan-out measurement. */
export function canFanOut(adapter: SystemAdapter): adapter is SystemAdapter & FanOutTarget {
  return typeof (adapter as Partial<FanOutTarget>).runFanOut === 'function';
}
