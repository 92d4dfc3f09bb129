import {
  explainNode,
  isTerminalRun,
  NotFoundError,
  RunFailedError,
  RunState,
  toMilliseconds,
  ValidationError,
  WaitTimeoutError,
  type Duration,
  type NodeExplanation,
  type RunStatus,
  type StepEvent,
  type StepStatus,
} from '@cyclone/core';
import {
  isUuid,
  type ClientStore,
  type RunPage,
  type RunQuery,
  type Subscription,
} from '@cyclone/store-postgres';
import { parseNodeLocator } from './node-locator.js';
import { parseLookupName } from './options.js';
import { knownRunId } from './operator-controls.js';
import { RunHandle } from './run-handle.js';
import type { RunId } from './run-id.js';
import { ScheduleControls } from './schedule-controls.js';

/** Options of {@link RunInspection.wait} and {@link RunInspection.result}. */
export interface WaitOptions {
  /** Give up with `WaitTimeoutError` after this long; by default wait as long as it takes. */
  readonly timeout?: Duration;
}

/**
 * The reading side of the {@link Client}: a run's status, its steps, its history and why a node
 * has not moved, and waiting for a run's end (through the {@link RunWaiter} below) and its
 * result. None of it writes.
 */
export abstract class RunInspection extends ScheduleControls {
  /** Waits for runs to end, woken by the database's notifications. */
  protected abstract readonly waiter: RunWaiter;
  /** How long a worker may go without refreshing its registration and still count as live. */
  protected abstract readonly workerLivenessMs: number;

  /**
   * A run's current status, with `parentRunId` / `parentStepId` for a child run and the runs its
   * child nodes started (`children`: run id, node, state). @throws NotFoundError for an unknown id.
   */
  async getRun(runId: string): Promise<RunStatus> {
    const run = isUuid(runId) ? await this.store.getRun(runId) : undefined;
    if (!run) throw new NotFoundError('run', runId);
    return run;
  }

  /**
   * Runs newest first, by state, workflow, parent run (`parentRunId`: the child runs of that run)
   * and creation time; follow `nextCursor` for more.
   *
   * @throws ValidationError when `workflow` is not well-formed text (U+0000, a lone surrogate),
   *   or `parentRunId` is not a run id
   */
  async listRuns(query: RunQuery = {}): Promise<RunPage> {
    if (query.workflow !== undefined) parseLookupName(query.workflow, 'run query', 'workflow');
    if (query.parentRunId !== undefined && !isUuid(query.parentRunId)) {
      throw new ValidationError('run query', [
        {
          path: 'parentRunId',
          message: `expected a run id, got ${JSON.stringify(query.parentRunId)}`,
        },
      ]);
    }
    return this.store.listRuns(query);
  }

  /**
   * Why a node is in its state and what would move it: the one reason it has not moved (its
   * upstream nodes, a signal, a timer, a child run, a full `maxParallel`, a paused run, a backoff,
   * a later schedule, no live worker for its kind), with what it waits on and until when. Read in
   * one statement from the rows the engine acts on, by the database's clock. `node` is a node
   * name, `node[index]` for an item task of a fan-out node, or a step id.
   *
   * @example
   * ```ts
   * const why = await client.explain(runId, 'ship');
   * // { node: 'ship', state: 'pending', reason: 'dependencies', waitingOn: ['approval'], ... }
   * ```
   *
   * @throws NotFoundError for an unknown run or node
   * @throws ValidationError when `node` is not well-formed text
   */
  async explain(runId: string, node: string): Promise<NodeExplanation> {
    const locator = parseNodeLocator(node);
    if (!isUuid(runId)) throw new NotFoundError('run', String(runId));
    const facts = await this.store.nodeFacts(runId, locator, this.workerLivenessMs);
    if (facts === 'run') throw new NotFoundError('run', runId);
    if (facts === 'node') throw new NotFoundError('node', `${node} of run ${runId}`);
    return explainNode(facts);
  }

  /** A run's steps (nodes, then item tasks), with outputs. @throws NotFoundError for an unknown run. */
  async listSteps(runId: string): Promise<StepStatus[]> {
    await this.getRun(runId);
    return this.store.listSteps(runId);
  }

  /**
   * A run's history in order. Pass `after` (the id of the last event seen) to read only what
   * happened since, e.g. to follow a run; omit it to start at the beginning. The first event,
   * `run_submitted`, has id 0 and a completed run's last, `run_completed`, has id
   * `Number.MAX_SAFE_INTEGER`: both are told by the run's row rather than stored.
   *
   * @throws NotFoundError for an unknown run
   */
  async events(
    runId: string,
    options: { readonly after?: number; readonly limit?: number } = {},
  ): Promise<StepEvent[]> {
    await this.getRun(runId);
    return this.store.listEvents(runId, options.after, options.limit);
  }

  /**
   * Resolves with the run's status once it is terminal (completed, failed or cancelled). Woken by
   * a notification when the run ends; it does not poll busily.
   *
   * @throws WaitTimeoutError when `timeout` passes first
   */
  async wait(runId: string, options: WaitOptions = {}): Promise<RunStatus> {
    const current = await this.getRun(runId);
    if (isTerminalRun(current.state)) return current;
    if (options.timeout === undefined) return this.waiter.wait(runId, current);
    const timeoutMs = toMilliseconds(options.timeout, 'timeout');
    const abandon = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abandon.abort();
        this.store
          .getRun(runId)
          .then(
            (run) => reject(new WaitTimeoutError(runId, timeoutMs, run?.state ?? current.state)),
            reject,
          );
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.waiter.wait(runId, current, abandon.signal), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The controls of one run: `pause`, `resume`, and `result`, typed with the run's result when
   * `runId` came from `submit` of a typed definition.
   */
  run<Result = Record<string, unknown>>(runId: RunId<Result>): RunHandle<Result> {
    return new RunHandle<Result>(runId, this.store, knownRunId, (options) =>
      this.result(runId, options),
    );
  }

  /**
   * Waits for the run to end and returns the outputs of its completed leaf nodes by node name
   * (for a standalone job: `{ [kind]: output }`). Typed with the run's result when `runId` came
   * from `submit` of a typed definition (a leaf whose branch was cancelled is absent).
   *
   * @throws RunFailedError when the run failed or was cancelled
   */
  async result<Result = Record<string, unknown>>(
    runId: RunId<Result>,
    options: WaitOptions = {},
  ): Promise<Result> {
    const run = await this.wait(runId, options);
    if (run.state !== RunState.Completed) {
      throw new RunFailedError(run.id, run.state, run.errorKind, run.failedNode, run.error);
    }
    const leaves = await this.store.leafOutputs(runId);
    // The leaf outputs by node name are what ResultOf<D> describes for a run of D.
    return Object.fromEntries(leaves.map((l) => [l.node, l.output])) as Result;
  }

  /**
   * One node's output, once that node completed.
   *
   * @throws NotFoundError for an unknown run or node, or a node that has not completed
   * @throws ValidationError when `node` is not well-formed text (U+0000, a lone surrogate)
   */
  async output(runId: string, node: string): Promise<unknown> {
    parseLookupName(node, 'output lookup', 'node');
    await this.getRun(runId);
    const step = await this.store.nodeOutput(runId, node);
    if (!step) throw new NotFoundError('node', `${node} of run ${runId}`);
    if (step.state !== 'completed') {
      throw new NotFoundError('node', `${node} of run ${runId} (no output: state ${step.state})`);
    }
    return step.output;
  }
}

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
