/**
 * Latency: an idle, listening worker; jobs enqueued one at a time, each after the previous one
 * started; the time from the enqueue call to the handler's start, in the same process and clock.
 */
import { sleep } from '../db.js';
import type { SystemAdapter, WorkerConfig } from '../types.js';

export interface LatencyResult {
  readonly samples: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly capped: boolean;
}

export async function latency(
  adapter: SystemAdapter,
  options: { n: number; capMs: number; worker: Omit<WorkerConfig, 'onJobStart' | 'shape'>; settleMs?: number },
): Promise<LatencyResult> {
  const waiting = new Map<number, (at: number) => void>();
  await adapter.startWorker({
    ...options.worker,
    onJobStart: (i) => waiting.get(i)?.(performance.now()),
  });
  // Let the worker settle into its idle state (listening, or between polls).
  await sleep(options.settleMs ?? 500);
  const samples: number[] = [];
  const t0 = performance.now();
  const perJobTimeoutMs = 30_000;
  for (let i = 0; i < options.n; i++) {
    if (i > 0 && performance.now() - t0 >= options.capMs) break;
    const started = new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`job ${i} did not start within ${perJobTimeoutMs} ms`)), perJobTimeoutMs);
      waiting.set(i, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
    const sent = performance.now();
    await adapter.enqueueOne(i);
    const at = await started;
    waiting.delete(i);
    samples.push(at - sent);
    // A random gap of up to the last latency (at most 2 s), so that the next enqueue does not
    // arrive at the same point of a polling worker's cycle: the samples of a poller then spread
    // over its interval as a job's arrival would. Cheap for a worker woken by notifications.
    await sleep(Math.random() * Math.min(2_000, at - sent));
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
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}
