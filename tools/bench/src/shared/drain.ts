/** The store-level drain and the order statistics the history measurements share. */
import type { PostgresStore } from '@cyclone/store-postgres';

/**
 * Claims and completes `n` queued jobs of `kind` through `store`, `limit` at a time, one call
 * after the other; resolves with the seconds it took. `label` names the database in the error
 * thrown when the queue runs dry first.
 */
export async function drainJobs(
  store: PostgresStore,
  kind: string,
  n: number,
  label: string,
  limit = 250,
): Promise<number> {
  const t0 = performance.now();
  let done = 0;
  while (done < n) {
    const claimed = await store.claim({ kinds: [kind], limit, workerId: 'bench', leaseMs: 60_000 });
    if (claimed.length === 0) throw new Error(`${label}: the queue ran dry at ${done} of ${n}`);
    await store.complete(
      claimed.map((s) => ({ stepId: s.id, claimToken: s.claimToken, outputJson: 'null' })),
    );
    done += claimed.length;
  }
  return (performance.now() - t0) / 1000;
}

/** The median of `xs` (the upper one of an even count). */
export const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The `q` quantile of `xs` (nearest rank), NaN for none. */
export const quantile = (xs: readonly number[], q: number): number =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN;

/** A claim and completion of one job: when it started and how long it took (`performance.now`). */
export interface Sample {
  readonly at: number;
  readonly ms: number;
}

/**
 * Starts a loop of single claims and completions of `kind` through `store`, one after the other;
 * `stop` ends it and resolves with every sample. It ends by itself when the queue runs dry.
 */
export function claimLoop(
  store: PostgresStore,
  kind: string,
): { samples: Sample[]; stop: () => Promise<Sample[]> } {
  const samples: Sample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = performance.now();
      const [step] = await store.claim({
        kinds: [kind],
        limit: 1,
        workerId: 'probe',
        leaseMs: 60_000,
      });
      if (!step) break;
      await store.complete([{ stepId: step.id, claimToken: step.claimToken, outputJson: 'null' }]);
      samples.push({ at, ms: performance.now() - at });
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
      return samples;
    },
  };
}
