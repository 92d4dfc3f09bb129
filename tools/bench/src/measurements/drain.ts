/**
 * The worker side of the throughput, depth, memory and workflow measurements: N jobs (or runs)
 * are already in the database; start one worker and time it until the database shows all of
 * them completed, or until a time cap.
 */
import { sleep } from '../shared/db.js';
import type { SystemAdapter, WorkerConfig, WorkflowShape } from '../shared/types.js';
import { RssSampler } from './rss.js';

export interface DrainResult {
  /** Jobs (or runs) completed when the clock stopped. */
  readonly done: number;
  readonly seconds: number;
  /** done / seconds */
  readonly rate: number;
  /** Whether the time cap stopped the clock before all N completed. */
  readonly capped: boolean;
  /** Time `startWorker` took, included in `seconds`. */
  readonly startMs: number;
  readonly baselineRssMb: number;
  readonly peakRssMb: number;
  /** CPU time this process spent from the worker's start to the last job (user + system), ms. */
  readonly cpuMs: number;
}

export interface DrainOptions {
  readonly n: number;
  readonly capMs: number;
  readonly worker: Omit<WorkerConfig, 'onJobStart' | 'shape'>;
  /** Drain runs of this workflow shape instead of plain jobs. */
  readonly shape?: WorkflowShape;
}

export async function drain(adapter: SystemAdapter, options: DrainOptions): Promise<DrainResult> {
  const { n, shape } = options;
  const open = !shape && adapter.countOpenJobs ? adapter.countOpenJobs.bind(adapter) : undefined;
  const count = shape
    ? () => adapter.countWorkflowsCompleted(shape)
    : open
      ? async () => n - (await open())
      : () => adapter.countCompleted();
  const baseline = open ? 0 : await count();
  // Handlers count their starts in memory; the database is polled in earnest only once every job
  // has started, so that counting (which may scan a large table in the depth measurement) does not
  // load the server while the worker is busy. A slower poll runs meanwhile in case a count is missed,
  // its first a second after the start: a count before any job can have finished would only load
  // the server while the worker ramps up (a count over a freshly filled queue visits every row).
  let started = 0;
  const rss = new RssSampler().start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await adapter.startWorker({
    ...options.worker,
    ...(shape ? { shape } : { onJobStart: () => void started++ }),
  });
  const startMs = performance.now() - t0;
  const deadline = t0 + options.capMs;
  let done = 0;
  let lastDbPoll = t0;
  for (;;) {
    const now = performance.now();
    const eager = shape !== undefined || started >= n;
    if (eager || now - lastDbPoll >= 1_000) {
      lastDbPoll = now;
      done = (await count()) - baseline;
      if (done >= n) break;
    }
    if (performance.now() >= deadline) {
      done = (await count()) - baseline;
      break;
    }
    await sleep(eager ? 10 : 5);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const memory = rss.stop();
  await adapter.stopWorker();
  return {
    done,
    seconds,
    rate: done / seconds,
    capped: done < n,
    startMs,
    baselineRssMb: memory.baselineMb,
    peakRssMb: memory.peakMb,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}
