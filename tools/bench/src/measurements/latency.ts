/**
 * Latency: an idle, listening worker; jobs enqueued one at a time, each after the previous one
 * started; the time from the enqueue call to the handler's start, in the same process and clock.
 * Each sample is also split where the enqueue call returns: the call itself (its statement and
 * commit) and the pickup after it (the wake-up, the claim and its commit, the dispatch).
 */
import { sleep } from '../shared/db.js';
import type { SystemAdapter, WorkerConfig } from '../shared/types.js';

export interface LatencyResult {
  readonly samples: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly capped: boolean;
  /** Median of the enqueue call's own time, commit included. */
  readonly enqueueP50: number;
  /** Median of the time from the enqueue call's return to the handler's start. */
  readonly pickupP50: number;
}

export async function latency(
  adapter: SystemAdapter,
  options: {
    n: number;
    capMs: number;
    worker: Omit<WorkerConfig, 'onJobStart' | 'shape'>;
    settleMs?: number;
  },
): Promise<LatencyResult> {
  const waiting = new Map<number, (at: number) => void>();
  await adapter.startWorker({
    ...options.worker,
    onJobStart: (i) => waiting.get(i)?.(performance.now()),
  });
  // Let the worker settle into its idle state (listening, or between polls).
  await sleep(options.settleMs ?? 500);
  const samples: number[] = [];
  const enqueueMs: number[] = [];
  const pickupMs: number[] = [];
  const t0 = performance.now();
  const perJobTimeoutMs = 30_000;
  for (let i = 0; i < options.n; i++) {
    if (i > 0 && performance.now() - t0 >= options.capMs) break;
    const started = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`job ${i} did not start within ${perJobTimeoutMs} ms`)),
        perJobTimeoutMs,
      );
      waiting.set(i, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
    const sent = performance.now();
    await adapter.enqueueOne(i);
    const returned = performance.now();
    const at = await started;
    waiting.delete(i);
    samples.push(at - sent);
    enqueueMs.push(returned - sent);
    pickupMs.push(at - returned);
    // A random gap of up to the 90th percentile of the latencies so far (at most 2 s) before the
    // next enqueue. For a polling worker that is about one polling interval, so the next job
    // arrives at a random point of its cycle, as a real job would, instead of right after a poll
    // every time; for a worker woken by notifications it is a few milliseconds (a percentile, not
    // the maximum, so that one outlier does not slow its sampling down).
    const sorted = [...samples].sort((a, b) => a - b);
    await sleep(Math.random() * Math.min(2_000, percentile(sorted, 0.9)));
  }
  await adapter.stopWorker();
  samples.sort((a, b) => a - b);
  return {
    samples: samples.length,
    p50: percentile(samples, 0.5),
    p95: percentile(samples, 0.95),
    p99: percentile(samples, 0.99),
    max: samples.at(-1) ?? Number.NaN,
    capped: samples.length < options.n,
    enqueueP50: median(enqueueMs),
    pickupP50: median(pickupMs),
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}
