import { isTerminalRun, type RunStatus } from '@cyclone/core';
import type { ClientStore, Subscription } from '@cyclone/store-postgres';

interface Waiter {
  readonly resolve: (run: RunStatus) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Wakes callers of `wait` when their run ends. One LISTEN connection serves every waiter of a
 * client; a slow poll covers notifications lost while that connection was down, and is the only
 * wake-up where the store has no connection to LISTEN on (a transaction-mode pooler).
 */
export class RunWaiter {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private subscription: Subscription | undefined;
  private starting: Promise<void> | undefined;
  private pollTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ClientStore,
    private readonly pollIntervalMs: number,
  ) {}

  /**
   * Resolves with the run once it is terminal. `signal` abandons this one wait (a timeout) without
   * touching other waits on the same run.
   */
  async wait(runId: string, current: RunStatus, signal?: AbortSignal): Promise<RunStatus> {
    if (isTerminalRun(current.state)) return current;
    let waiter!: Waiter;
    const ended = new Promise<RunStatus>((resolve, reject) => {
      waiter = { resolve, reject };
      let set = this.waiters.get(runId);
      if (!set) this.waiters.set(runId, (set = new Set()));
      set.add(waiter);
    });
    signal?.addEventListener('abort', () => this.forget(runId, waiter), { once: true });
    await this.ensureListening();
    // The run may have ended between the first read and LISTEN taking effect.
    await this.check([runId]);
    return ended;
  }

  /** Stops one wait on a run; the caller settles its promise. */
  private forget(runId: string, waiter: Waiter): void {
    const set = this.waiters.get(runId);
    if (!set) return;
    set.delete(waiter);
    if (set.size === 0) this.waiters.delete(runId);
    this.maybeStopPolling();
  }

  private async ensureListening(): Promise<void> {
    if (!this.pollTimer) {
      this.pollTimer = setInterval(
        () => void this.check([...this.waiters.keys()]),
        this.pollIntervalMs,
      );
      this.pollTimer.unref();
    }
    if (this.subscription) return;
    this.starting ??= (async () => {
      this.subscription = await this.store.subscribe({
        runsEnded: (runIds) => {
          const ids = runIds.filter((id) => this.waiters.has(id));
          if (ids.length > 0) void this.check(ids);
        },
        reconnected: () => void this.check([...this.waiters.keys()]),
      });
    })().finally(() => {
      this.starting = undefined;
    });
    await this.starting;
  }

  private async check(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    let runs: RunStatus[];
    try {
      runs = await this.store.getRuns(runIds);
    } catch (error) {
      for (const id of runIds) for (const w of this.waiters.get(id) ?? []) w.reject(error);
      for (const id of runIds) this.waiters.delete(id);
      return;
    }
    for (const run of runs) {
      if (!isTerminalRun(run.state)) continue;
      const set = this.waiters.get(run.id);
      this.waiters.delete(run.id);
      for (const w of set ?? []) w.resolve(run);
    }
    this.maybeStopPolling();
  }

  private maybeStopPolling(): void {
    if (this.waiters.size === 0 && this.pollTimer) {
      clearInterval(this.pollTimer);
      this.pollTimer = undefined;
    }
  }

  /** Releases the LISTEN connection. */
  async close(): Promise<void> {
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.pollTimer = undefined;
    await this.starting?.catch(() => undefined);
    await this.subscription?.close();
    this.subscription = undefined;
  }
}
