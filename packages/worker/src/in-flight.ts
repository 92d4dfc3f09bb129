import type { ClaimedStep } from '@cyclone/store-postgres';
import type { StepAbort } from './step-abort.js';
import type { HandlerContext } from './step-context.js';

/** Why this worker no longer holds a step whose handler may still be running. */
export type LostReason =
  /** The heartbeat found the claim gone (cancelled, reclaimed, ended), or the worker claimed the step again. */
  | 'lease lost'
  /** Shutdown aborted the handler; the step is released once the handler settles. */
  | 'released'
  /** Shutdown aborted the handler and it did not settle: the step is left to its lease. */
  | 'abandoned';

/** A step whose handler is running. */
export class InFlight {
  /** Set when the worker no longer holds the step: its result must not be recorded. */
  lost?: LostReason;
  /** The handler's context, once its handler is called (what its transaction did is read there). */
  context?: HandlerContext;
  #settled = false;
  #onSettled: (() => void) | undefined;
  #settledPromise: Promise<void> | undefined;

  constructor(
    readonly step: ClaimedStep,
    readonly controller: StepAbort,
  ) {}

  /** Says that the handler itself has settled (a fired timeout does not settle it). */
  handlerDone(): void {
    this.#settled = true;
    this.#onSettled?.();
  }

  /**
   * Settles when the handler itself settles. Made on first read: only a shutdown that aborts
   * handlers waits for them, and a promise for every step would be garbage for every step.
   */
  get handlerSettled(): Promise<void> {
    this.#settledPromise ??= this.#settled
      ? Promise.resolve()
      : new Promise<void>((resolve) => (this.#onSettled = resolve));
    return this.#settledPromise;
  }
}

/**
 * The steps whose handlers run now, by step id: what occupies the execution slots, what the
 * heartbeat renews, and what shutdown aborts.
 */
export class InFlightSteps {
  private readonly entries = new Map<string, InFlight>();

  /** Handlers running now (their slots are taken). */
  get size(): number {
    return this.entries.size;
  }

  /** The entry that holds the step now, if any. */
  get(stepId: string): InFlight | undefined {
    return this.entries.get(stepId);
  }

  /** Every entry, in start order. */
  all(): InFlight[] {
    return [...this.entries.values()];
  }

  /**
   * Tracks a new handler call. This worker may claim a step again after losing its lease on it
   * (the sweep reclaimed it): the older call no longer holds the step, so it is returned to be
   * stopped, and its end must not untrack the newer one, which the heartbeat has to keep renewing.
   *
   * @returns the older call of the same step that still believed it held it, if any
   */
  add(entry: InFlight): InFlight | undefined {
    const previous = this.entries.get(entry.step.id);
    this.entries.set(entry.step.id, entry);
    return previous && !previous.lost ? previous : undefined;
  }

  /** Frees the entry's slot; false when the slot was already freed or taken by a newer call. */
  free(entry: InFlight): boolean {
    if (this.entries.get(entry.step.id) !== entry) return false;
    this.entries.delete(entry.step.id);
    return true;
  }
}
