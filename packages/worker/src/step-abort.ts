/**
 * A step's abort signal, made on first need. Most handlers never read `ctx.signal` and most steps
 * are never aborted, while an `AbortController` and its signal cost more to make than the rest of
 * a step's context; an abort before the first read still reaches a signal read later.
 */
export class StepAbort {
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;

  /** The signal handed to the handler (`ctx.signal`). */
  get signal(): AbortSignal {
    this.#controller ??= this.#make();
    return this.#controller.signal;
  }

  /** Aborts the step's signal with `reason` (once; later aborts change nothing). */
  abort(reason: unknown): void {
    if (this.#controller) {
      this.#controller.abort(reason);
      return;
    }
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
  }

  #make(): AbortController {
    const controller = new AbortController();
    if (this.#aborted) controller.abort(this.#reason);
    return controller;
  }
}
