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
import { isUuid, type RunPage, type RunQuery } from '@cyclone/store-postgres';
import { parseNodeLocator } from './node-locator.js';
import { parseLookupName } from './options.js';
import { knownRunId } from './operator-controls.js';
import { RunHandle } from './run-handle.js';
import type { RunId } from './run-id.js';
import type { RunWaiter } from './run-waiter.js';
import { ScheduleControls } from './schedule-controls.js';

/** Options of {@link RunInspection.wait} and {@link RunInspection.result}. */
export interface WaitOptions {
  /** Give up with `WaitTimeoutError` after this long; by default wait as long as it takes. */
  readonly timeout?: Duration;
}

/**
 * The reading side of the {@link Client}: a run's status, its steps, its history and why a node
 * has not moved, and waiting for a run's end and its result. None of it writes.
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
