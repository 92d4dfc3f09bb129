import type { Logger } from 'pino';
import type { ClaimedStep, WorkerStore } from '@cyclone/store-postgres';
import type { InFlightSteps } from './in-flight.js';
import { loggableError } from './log-error.js';

/** The claimed-ahead steps whose leases the keeper renews too. */
export interface LeaseBuffer {
  /** The steps claimed ahead now. */
  readonly steps: readonly ClaimedStep[];
  /** Drops a claimed-ahead step whose claim was lost, before it starts. */
  drop(step: ClaimedStep): void;
}

/**
 * Keeps this worker's leases alive: every `heartbeatMs` it renews the leases of the running and
 * the claimed-ahead steps in one statement, and aborts the handler of any step whose claim is gone
 * (cancelled, failed fast, reclaimed, ended). A step given up at shutdown is no longer renewed, so
 * its lease runs out on time.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Pick<WorkerStore, 'heartbeat'>,
    private readonly inFlight: InFlightSteps,
    private readonly buffer: LeaseBuffer,
    private readonly options: { readonly leaseMs: number; readonly heartbeatMs: number },
    private readonly logger: Logger,
  ) {}

  /** Starts renewing. */
  start(): void {
    this.timer = setInterval(() => void this.beat(), this.options.heartbeatMs);
  }

  /** Stops renewing: whatever is still held expires with its lease. */
  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * Aborts at once the handlers (and drops the claimed-ahead steps) of steps an operator or a
   * scanner ended: cancel and the run deadline push their ids, so a handler's `ctx.signal` fires
   * now rather than at the next heartbeat. Whatever such a handler still returns is fenced out.
   */
  abortEnded(stepIds: readonly string[]): void {
    const ended = new Set(stepIds);
    for (const step of this.buffer.steps) if (ended.has(step.id)) this.buffer.drop(step);
    for (const id of ended) {
      const entry = this.inFlight.get(id);
      if (!entry || entry.lost) continue;
      entry.lost = 'lease lost';
      entry.controller.abort(new Error('step ended: the run was cancelled or its deadline passed'));
      this.logger.info(
        { stepId: id, runId: entry.step.runId },
        'step ended by an operator or a deadline; aborting handler',
      );
    }
  }

  private async beat(): Promise<void> {
    const entries = this.inFlight.all().filter((e) => !e.lost);
    const waiting = [...this.buffer.steps];
    if (entries.length === 0 && waiting.length === 0) return;
    try {
      const held = await this.store.heartbeat(
        [...entries.map((e) => e.step), ...waiting].map((step) => ({
          stepId: step.id,
          claimToken: step.claimToken,
        })),
        this.options.leaseMs,
      );
      // A buffered step that lost its claim (cancelled, reclaimed) is dropped before it starts.
      for (const step of waiting) if (!held.has(step.id)) this.buffer.drop(step);
      for (const entry of entries) {
        if (held.has(entry.step.id) || entry.lost || this.inFlight.get(entry.step.id) !== entry) {
          continue;
        }
        entry.lost = 'lease lost';
        entry.controller.abort(new Error('lease lost: the step was cancelled, reclaimed or ended'));
        this.logger.warn(
          { stepId: entry.step.id, runId: entry.step.runId },
          'lease lost; aborting handler',
        );
      }
    } catch (error) {
      this.logger.warn(
        { error: loggableError(error) },
        'heartbeat failed; retrying at the next interval',
      );
    }
  }
}
