import { StepState } from '@cyclone/core';
import type { EngineGauges } from '../contract/metrics-store.js';
import type { Executor } from '../db/executor.js';
import { countExhaustedByReason } from './count-exhausted-by-reason.js';
import { countRunsByState } from './count-runs-by-state.js';
import { measureQueues } from './measure-queues.js';

/**
 * The engine's gauges. Three statements outside a transaction: each is exact, and a scrape does
 * not need them to agree to the row with each other.
 */
export async function readEngineGauges(db: Executor): Promise<EngineGauges> {
  const [runs, exhausted, queues] = await Promise.all([
    countRunsByState(db),
    countExhaustedByReason(db, { discardedState: StepState.Exhausted }),
    measureQueues(db, { availableState: StepState.Available }),
  ]);
  return {
    runs,
    exhausted,
    queues: queues.map((q) => ({
      kind: q.kind,
      depth: q.depth,
      ready: q.ready,
      oldestReadySeconds: Number(q.oldest_ready_seconds),
    })),
  };
}
