import type { ClaimedStep } from '@cyclone/store-postgres';

/**
 * What the worker's hot path reports: plain calls with the kind as a string, so that reporting is
 * a map lookup and an increment (no label object built per step).
 */
export interface StepMetrics {
  /** A claim statement took `ms` and returned `steps`. */
  claimed(ms: number, steps: readonly ClaimedStep[]): void;
  /** A handler of `kind` ran for `ms`. */
  handlerFinished(kind: string, ms: number): void;
  /** A success was recorded. */
  completed(kind: string): void;
  /** A failure was recorded: the step was retried (after its backoff) or discarded. */
  failed(kind: string, outcome: 'retried' | 'discarded'): void;
  /** A snooze was recorded. */
  snoozed(kind: string): void;
  /** An outcome was dropped: the claim had moved on (the lease was lost). */
  dropped(kind: string): void;
}

/** The metrics of a worker without prom-client: nothing is counted. */
export const NoStepMetrics: StepMetrics = {
  claimed: () => undefined,
  handlerFinished: () => undefined,
  completed: () => undefined,
  failed: () => undefined,
  snoozed: () => undefined,
  dropped: () => undefined,
};
