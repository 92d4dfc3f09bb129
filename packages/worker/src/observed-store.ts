import type { ClaimRequest, Completion, WorkerStore } from '@cyclone/store-postgres';
import type { StepMetrics } from './step-metrics.js';
import { traceClaim, traceComplete } from './tracing.js';

/**
 * The store as the producer and the recorder see it: the same store, with its claim measured and
 * traced and its completion statement traced. Wrapping here keeps metrics and tracing out of the
 * claim loop and the completion batcher.
 */
export function observedStore<S extends WorkerStore>(store: S, metrics: StepMetrics): S {
  const observed = Object.create(store) as S;
  observed.claim = (request: ClaimRequest) => {
    const startedAt = performance.now();
    return traceClaim(request, () => store.claim(request)).then((steps) => {
      metrics.claimed(performance.now() - startedAt, steps);
      return steps;
    });
  };
  observed.complete = (completions: readonly Completion[]) =>
    traceComplete(completions, () => store.complete(completions));
  return observed;
}
