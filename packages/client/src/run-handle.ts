import type { ClientStore } from '@cyclone/store-postgres';
import type { Duration } from '@cyclone/core';

/**
 * Operator controls of one run, from `client.run(runId)`. Each action is one transaction that
 * takes the run's lock first; a refused action throws and changes nothing.
 */
export class RunHandle<Result = Record<string, unknown>> {
  constructor(
    /** The run this handle steers. */
    readonly runId: string,
    private readonly store: Pick<ClientStore, 'pauseRun' | 'resumeRun'>,
    private readonly check: (runId: string) => void,
    private readonly readResult: (options?: { readonly timeout?: Duration }) => Promise<Result>,
  ) {}

  /**
   * Waits for the run to end and returns its result, as `client.result(runId)` does.
   *
   * @throws RunFailedError when the run failed or was cancelled
   */
  result(options?: { readonly timeout?: Duration }): Promise<Result> {
    return this.readResult(options);
  }

  /**
   * Pauses the run: available and waiting steps to `paused` (waits keep what they gathered and
   * the time they had left); nothing new starts until `resume()`. Steps already running go on.
   *
   * @throws NotFoundError for an unknown run; AlreadyPausedError; AlreadyTerminalError
   */
  async pause(): Promise<void> {
    this.check(this.runId);
    await this.store.pauseRun(this.runId);
  }

  /**
   * Resumes a paused run: each paused step back where it was (waits and timers moved forward by
   * the pause), and the steps whose dependencies completed during the pause become available.
   *
   * @throws NotFoundError for an unknown run; NotPausedError (with `reason`) for a run not paused
   */
  async resume(): Promise<void> {
    this.check(this.runId);
    await this.store.resumeRun(this.runId);
  }
}
