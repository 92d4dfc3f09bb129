import type pg from 'pg';
import {
  ErrorKind,
  StepState,
  StepTrigger,
  stepChange,
  RunTrigger,
  runChange,
  type BackoffPolicy,
  type RunStatus,
  type StepEvent,
  type StepStatus,
} from '@cyclone/core';
import { Executor, type Queryable } from './executor.js';
import type {
  ClaimRequest,
  ClaimedStep,
  Completion,
  CycloneStore,
  Failure,
  FailureOutcome,
  HeldStep,
  RunPage,
  RunQuery,
  StoreListener,
  SubmittedRun,
  Subscription,
  UnservedStepsSweep,
} from './contract/index.js';
import { Notifier } from './notifier.js';
import { Channels } from './sql/channels.js';
import { QueryCompiler } from './query.js';
import { tablesIn, type Tables } from './tables.js';
import { isRetryableTransactionError, withTransaction } from './transaction.js';
import { insertRunsParams, type NewRun } from './submission.js';
import { settleRun } from './settle-run.js';
import {
  toRunStatus,
  toStepEvent,
  toStepStatus,
  type EventRow,
  type RunRow,
  type StepRow,
} from './rows.js';
import { insertRuns } from './sql/insert-runs.js';
import { findRunsByIdempotencyKey } from './sql/find-runs-by-idempotency-key.js';
import { claimSteps } from './sql/claim-steps.js';
import { completeSteps } from './sql/complete-steps.js';
import { rescheduleStep } from './sql/reschedule-step.js';
import { discardStep } from './sql/discard-step.js';
import { heartbeatSteps } from './sql/heartbeat-steps.js';
import { lockRunOfStep } from './sql/lock-run-of-step.js';
import { reclaimExpiredLeases } from './sql/reclaim-expired-leases.js';
import { findReclaimLimited } from './sql/find-reclaim-limited.js';
import { getRun } from './sql/get-run.js';
import { getRuns } from './sql/get-runs.js';
import { listRuns } from './sql/list-runs.js';
import { listSteps } from './sql/list-steps.js';
import { listEvents } from './sql/list-events.js';
import { getNodeOutput } from './sql/get-node-output.js';
import { getLeafOutputs } from './sql/get-leaf-outputs.js';
import { attemptLeadership } from './sql/attempt-leadership.js';
import { resignLeadership } from './sql/resign-leadership.js';
import { upsertWorker } from './sql/upsert-worker.js';
import { removeWorker } from './sql/remove-worker.js';
import { findUnservedSteps } from './sql/find-unserved-steps.js';
import { claimStep } from './sql/claim-step.js';

// The changes each write performs, built from core's table once: an illegal one fails at import,
// and each statement is handed its allowed from-states.
const claim = stepChange(StepTrigger.Claim, StepState.Running);
const complete = stepChange(StepTrigger.Complete, StepState.Completed);
const promote = stepChange(StepTrigger.Promote, StepState.Available);
const runCompletes = runChange(RunTrigger.Complete, 'completed');
const pauseOnRequeue = stepChange(StepTrigger.RetryableError, StepState.Paused);
const requeue = {
  [StepTrigger.RetryableError]: stepChange(StepTrigger.RetryableError, StepState.Available),
  [StepTrigger.Snooze]: stepChange(StepTrigger.Snooze, StepState.Available),
  [StepTrigger.TransientError]: stepChange(StepTrigger.TransientError, StepState.Available),
  [StepTrigger.Release]: stepChange(StepTrigger.Release, StepState.Available),
} as const;
const reclaim = stepChange(StepTrigger.Reclaim, StepState.Available);
const reclaimPaused = stepChange(StepTrigger.Reclaim, StepState.Paused);
const discardPermanent = stepChange(StepTrigger.PermanentError, StepState.Exhausted);
const discardExhausted = stepChange(StepTrigger.AttemptsExhausted, StepState.Exhausted);
const discardReclaimLimit = stepChange(StepTrigger.ReclaimLimit, StepState.Exhausted);

/** Options of a {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** The pool every query runs on; the store never ends a pool it was given. */
  readonly pool: pg.Pool;
  /**
   * Postgres schema of Cyclone's tables.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
}

/**
 * Cyclone's PostgreSQL store: the only place that speaks SQL. Every state write is one of core's
 * transitions, fenced by the states the table allows (and, for a worker's writes, by its claim
 * token), and commits together with its events.
 */
export class PostgresStore implements CycloneStore {
  private readonly pool: pg.Pool;
  readonly tables: Tables;
  private readonly exec: Executor;

  constructor(options: PostgresStoreOptions) {
    this.pool = options.pool;
    this.tables = tablesIn(options.schema);
    this.exec = new Executor(this.pool, new QueryCompiler(this.tables));
  }

  /** Fails when the database is unreachable or the steps table is missing. */
  async checkSchema(): Promise<void> {
    await this.pool.query(`SELECT 1 FROM ${this.tables.steps} LIMIT 0`);
  }

  /**
   * Inserts runs with all their steps in one statement, on the pool or on the caller's own
   * transaction. A run whose idempotency key exists already is not inserted; its existing id is
   * returned with `created: false`.
   */
  async submit(runs: readonly NewRun[], tx?: Queryable): Promise<SubmittedRun[]> {
    const exec = tx ? this.exec.on(tx) : this.exec;
    const inserted = new Set(
      (await exec.rows<{ id: string }>(insertRuns, insertRunsParams(runs))).map((r) => r.id),
    );
    const missing = runs.filter((r) => !inserted.has(r.id) && r.idempotencyKey !== null);
    const existing = new Map<string, string>();
    if (missing.length > 0) {
      const rows = await exec.rows<{ id: string; idempotency_key: string }>(
        findRunsByIdempotencyKey,
        [missing.map((r) => r.idempotencyKey)],
      );
      for (const row of rows) existing.set(row.idempotency_key, row.id);
    }
    return runs.map((run) => {
      if (inserted.has(run.id)) return { runId: run.id, created: true };
      const found = run.idempotencyKey === null ? undefined : existing.get(run.idempotencyKey);
      if (found === undefined) {
        // Inserted by neither this call nor anyone else: only a key that was itself in this batch twice.
        const twin = runs.find(
          (r) => r.idempotencyKey === run.idempotencyKey && inserted.has(r.id),
        );
        if (twin) return { runId: twin.id, created: false };
        throw new Error(`run ${run.id} was not inserted and no run holds its idempotency key`);
      }
      return { runId: found, created: false };
    });
  }

  /** Claims available steps of the given kinds for a worker. */
  async claim(request: ClaimRequest): Promise<ClaimedStep[]> {
    if (request.kinds.length === 0 || request.limit <= 0) return [];
    const rows = await this.exec.rows<Record<string, unknown>>(claimSteps, [
      request.kinds,
      request.limit,
      request.workerId,
      request.leaseMs,
      claim.from,
    ]);
    return rows.map((r) => ({
      id: r.id as string,
      runId: r.run_id as string,
      node: r.node as string,
      nodeType: r.node_type as string,
      kind: r.kind as string,
      attempts: r.attempts as number,
      maxAttempts: r.max_attempts as number,
      reclaims: r.reclaims as number,
      timeoutMs: r.timeout_ms as number | null,
      backoff: r.backoff as BackoffPolicy | null,
      claimToken: r.claim_token as string,
      leaseExpiresAt: r.lease_expires_at as Date,
      workflow: r.workflow as string,
      input: r.input,
      deps: (r.deps as Record<string, unknown> | null) ?? {},
      item: r.item,
      itemIndex: r.item_index as number | null,
    }));
  }

  /**
   * Records handler successes in one statement, then settles the runs that need more than that
   * statement does. Returns the ids whose completion was accepted; the others were fenced out
   * (their claim had moved on) and nothing of them was written.
   */
  async complete(completions: readonly Completion[]): Promise<Set<string>> {
    if (completions.length === 0) return new Set();
    const rows = await this.retrying(() =>
      this.exec.rows<{ what: string; id: string | null }>(completeSteps, [
        completions.map((c) => c.stepId),
        completions.map((c) => c.claimToken),
        completions.map((c) => c.outputJson),
        complete.from,
        runCompletes.from,
        promote.from,
      ]),
    );
    const accepted = new Set<string>();
    const toSettle: string[] = [];
    for (const row of rows) {
      if (row.what === 'done' && row.id) accepted.add(row.id);
      else if (row.what === 'settle' && row.id) toSettle.push(row.id);
    }
    await this.settle(toSettle);
    return accepted;
  }

  /**
   * Records a handler failure: a retryable one goes back to available after its backoff, unless it
   * was the last attempt; a permanent one, or the last attempt, discards the step and settles the
   * run (fail-fast, or branch cancellation) in the same transaction.
   */
  async fail(failure: Failure): Promise<FailureOutcome> {
    // A transient failure (the input could not be read) charges no attempt, so it never exhausts
    // the step: it goes back to available at the same attempt, however many attempts are left.
    const exhausted =
      failure.errorKind !== ErrorKind.Transient && failure.attempts + 1 >= failure.maxAttempts;
    if (failure.errorKind !== ErrorKind.Permanent && !exhausted) {
      const trigger =
        failure.errorKind === ErrorKind.Transient
          ? StepTrigger.TransientError
          : StepTrigger.RetryableError;
      const moved = await this.requeue(failure.stepId, failure.claimToken, {
        trigger,
        delayMs: failure.retryDelayMs,
        chargeAttempt: trigger === StepTrigger.RetryableError,
        error: failure.error,
        errorKind: failure.errorKind,
        panicStack: failure.panicStack,
        eventType: 'step_retry_scheduled',
        detail: { attempt: failure.attempts + 1, delayMs: failure.retryDelayMs },
      });
      return moved ? 'retried' : 'fenced';
    }
    const change = failure.errorKind === ErrorKind.Permanent ? discardPermanent : discardExhausted;
    const discarded = await this.discard(failure.stepId, failure.claimToken, {
      change,
      error: failure.error,
      errorKind: failure.errorKind,
      panicStack: failure.panicStack,
      chargeAttempt: true,
      detail: { attempt: failure.attempts + 1 },
    });
    return discarded ? 'discarded' : 'fenced';
  }

  /** Delays a running step without charging an attempt (`snooze(d)`). */
  async snooze(stepId: string, claimToken: string, delayMs: number): Promise<boolean> {
    return this.requeue(stepId, claimToken, {
      trigger: StepTrigger.Snooze,
      delayMs,
      chargeAttempt: false,
      error: `snoozed for ${delayMs}ms`,
      errorKind: ErrorKind.Snooze,
      panicStack: null,
      eventType: 'step_snoozed',
      detail: { delayMs },
    });
  }

  /** Gives a running step back without charging an attempt (graceful worker shutdown). */
  async release(stepId: string, claimToken: string): Promise<boolean> {
    return this.requeue(stepId, claimToken, {
      trigger: StepTrigger.Release,
      delayMs: 0,
      chargeAttempt: false,
      error: null,
      errorKind: null,
      panicStack: null,
      eventType: 'step_released',
      detail: null,
    });
  }

  private async requeue(
    stepId: string,
    claimToken: string,
    p: {
      trigger: keyof typeof requeue;
      delayMs: number;
      chargeAttempt: boolean;
      error: string | null;
      errorKind: string | null;
      panicStack: string | null;
      eventType: string;
      detail: Record<string, unknown> | null;
    },
  ): Promise<boolean> {
    const rows = await this.retrying(() =>
      this.exec.rows(rescheduleStep, [
        stepId,
        claimToken,
        Math.max(0, Math.round(p.delayMs)),
        p.chargeAttempt,
        p.error,
        p.errorKind,
        p.panicStack,
        p.eventType,
        requeue[p.trigger].from,
        pauseOnRequeue.from,
        p.detail === null ? null : JSON.stringify(p.detail),
      ]),
    );
    return rows.length > 0;
  }

  private async discard(
    stepId: string,
    claimToken: string,
    p: {
      change: typeof discardPermanent;
      error: string;
      errorKind: string;
      panicStack: string | null;
      chargeAttempt: boolean;
      detail: Record<string, unknown>;
      /** Discard only if the lease has (still) expired: the reclaim limit. */
      requireExpiredLease?: boolean;
    },
  ): Promise<boolean> {
    return withTransaction(this.pool, async (client) => {
      const tx = this.exec.on(client);
      const run = await tx.one<{ id: string }>(lockRunOfStep, [stepId]);
      if (!run) return false;
      const gone = await tx.rows(discardStep, [
        stepId,
        claimToken,
        p.error,
        p.errorKind,
        p.panicStack,
        'step_discarded',
        p.change.from,
        JSON.stringify({ ...p.detail, trigger: p.change.trigger }),
        p.chargeAttempt,
        p.requireExpiredLease ?? false,
      ]);
      if (gone.length === 0) return false;
      await settleRun(tx, run.id);
      return true;
    });
  }

  /** Extends the leases of held steps; returns the ids still held (the others were lost). */
  async heartbeat(held: readonly HeldStep[], leaseMs: number): Promise<Set<string>> {
    if (held.length === 0) return new Set();
    const rows = await this.exec.rows<{ id: string }>(heartbeatSteps, [
      held.map((h) => h.stepId),
      held.map((h) => h.claimToken),
      leaseMs,
    ]);
    return new Set(rows.map((r) => r.id));
  }

  /**
   * The recovery sweep: steps whose lease expired go back to available (reclaims + 1, no attempt
   * charged, no backoff), or are discarded with `reclaim_limit` once reclaimed `maxReclaims`
   * times. Returns how many steps it moved.
   */
  async reclaimExpired(limit = 500): Promise<number> {
    const moved = await this.retrying(() =>
      this.exec.rows(reclaimExpiredLeases, [limit, reclaim.from, reclaimPaused.from]),
    );
    const limited = await this.exec.rows<{ id: string; claim_token: string; reclaims: number }>(
      findReclaimLimited,
      [limit],
    );
    let discarded = 0;
    for (const step of limited) {
      const gone = await this.discard(step.id, step.claim_token, {
        change: discardReclaimLimit,
        error: `lease expired after ${step.reclaims} reclaims`,
        errorKind: ErrorKind.ReclaimLimit,
        panicStack: null,
        chargeAttempt: false,
        detail: { reclaims: step.reclaims },
        requireExpiredLease: true,
      });
      if (gone) discarded++;
    }
    return moved.length + discarded;
  }

  /** Settles runs one by one, each in its own transaction (see `settleRun`). */
  async settle(runIds: readonly string[]): Promise<void> {
    for (const runId of new Set(runIds)) {
      await withTransaction(this.pool, (client) => settleRun(this.exec.on(client), runId));
    }
  }

  /** One run's status, or undefined for an unknown id. */
  async getRun(runId: string): Promise<RunStatus | undefined> {
    const row = await this.exec.one<RunRow>(getRun, [runId]);
    return row && toRunStatus(row);
  }

  /** The statuses of several runs (unknown ids are left out). */
  async getRuns(runIds: readonly string[]): Promise<RunStatus[]> {
    if (runIds.length === 0) return [];
    return (await this.exec.rows<RunRow>(getRuns, [runIds])).map(toRunStatus);
  }

  /** Runs newest first, filtered, one page at a time (follow `nextCursor`). */
  async listRuns(query: RunQuery = {}): Promise<RunPage> {
    const limit = query.limit ?? 50;
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    const rows = await this.exec.rows<RunRow & { cursor_at: string }>(listRuns, [
      query.states && query.states.length > 0 ? query.states : null,
      query.workflow ?? null,
      query.createdAfter ?? null,
      query.createdBefore ?? null,
      cursor?.createdAt ?? null,
      cursor?.id ?? null,
      limit + 1,
    ]);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const runs = page.map(toRunStatus);
    return rows.length > limit && last
      ? { runs, nextCursor: encodeCursor(last.cursor_at, last.id) }
      : { runs };
  }

  /** A run's steps: nodes in declaration order, then item tasks in item order, with outputs. */
  async listSteps(runId: string): Promise<StepStatus[]> {
    return (await this.exec.rows<StepRow>(listSteps, [runId])).map(toStepStatus);
  }

  /** A run's events in order, after the event id `afterId` when given. */
  async listEvents(runId: string, afterId?: number, limit = 10_000): Promise<StepEvent[]> {
    return (await this.exec.rows<EventRow>(listEvents, [runId, afterId ?? null, limit])).map(
      toStepEvent,
    );
  }

  /** A node's state and output (item tasks excluded), or undefined for an unknown node. */
  async nodeOutput(
    runId: string,
    node: string,
  ): Promise<{ state: string; output: unknown } | undefined> {
    return this.exec.one<{ state: string; output: unknown }>(getNodeOutput, [runId, node]);
  }

  /** The outputs of a run's completed leaf nodes: its result. */
  async leafOutputs(runId: string): Promise<{ node: string; output: unknown }[]> {
    return this.exec.rows<{ node: string; output: unknown }>(getLeafOutputs, [runId]);
  }

  /**
   * Takes or renews the named leader lease for `holder`; true while `holder` leads. Replicas
   * call it every interval, so a leader that dies is replaced once its lease expires.
   */
  async attemptLeadership(name: string, holder: string, leaseMs: number): Promise<boolean> {
    return (await this.exec.rows(attemptLeadership, [name, holder, leaseMs])).length > 0;
  }

  /** Gives up the named lease if `holder` has it. */
  async resignLeadership(name: string, holder: string): Promise<void> {
    await this.exec.count(resignLeadership, [name, holder]);
  }

  /** Registers (or refreshes) a live worker and the kinds it handles. */
  async registerWorker(workerId: string, kinds: readonly string[]): Promise<void> {
    await this.exec.count(upsertWorker, [workerId, kinds]);
  }

  /** Forgets a stopped worker. */
  async deregisterWorker(workerId: string): Promise<void> {
    await this.exec.count(removeWorker, [workerId]);
  }

  /**
   * Fails steps that no live worker can run: available for longer than `graceMs` while workers
   * are live and none of them handles the step's kind. Each is claimed on behalf of `claimant`
   * and discarded as permanent with an error that names the kind, then its run is settled, all
   * in one transaction. Returns how many steps it failed.
   */
  async failUnservedSteps(p: UnservedStepsSweep): Promise<number> {
    const steps = await this.exec.rows<{ id: string; run_id: string; kind: string }>(
      findUnservedSteps,
      [p.livenessMs, p.graceMs, p.limit ?? 100],
    );
    let failed = 0;
    for (const step of steps) {
      const done = await withTransaction(this.pool, async (client) => {
        const tx = this.exec.on(client);
        await tx.one(lockRunOfStep, [step.id]);
        const claimed = await tx.one<{ claim_token: string }>(claimStep, [
          step.id,
          p.claimant,
          claim.from,
        ]);
        if (!claimed) return false;
        await tx.rows(discardStep, [
          step.id,
          claimed.claim_token,
          `no live worker handles kind "${step.kind}": register a handler for it on a worker, then retry the step`,
          ErrorKind.Permanent,
          null,
          'step_discarded',
          discardPermanent.from,
          JSON.stringify({ trigger: discardPermanent.trigger, reason: 'unserved_kind' }),
          true,
          false,
        ]);
        await settleRun(tx, step.run_id);
        return true;
      });
      if (done) failed++;
    }
    return failed;
  }

  /** Listens for the database's wake-ups on one connection of the pool (see {@link Notifier}). */
  async subscribe(listener: StoreListener): Promise<Subscription> {
    const channels: string[] = [];
    if (listener.stepsAvailable) channels.push(Channels.stepsAvailable);
    if (listener.runsEnded) channels.push(Channels.runsEnded);
    const notifier = new Notifier({
      pool: this.pool,
      channels,
      onNotification: (channel, payload) => {
        if (channel === Channels.stepsAvailable) listener.stepsAvailable?.(payload);
        else if (channel === Channels.runsEnded) listener.runsEnded?.(payload.split(','));
      },
      ...(listener.reconnected ? { onReconnect: listener.reconnected } : {}),
      ...(listener.error ? { onError: listener.error } : {}),
    });
    await notifier.start();
    return { close: () => notifier.stop() };
  }

  /** Runs a statement again when Postgres aborted it for a deadlock. */
  private async retrying<T>(work: () => Promise<T>, attempts = 5): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (attempt >= attempts || !isRetryableTransactionError(error)) throw error;
      }
    }
  }
}

function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [
      string,
      string,
    ];
    if (typeof createdAt !== 'string' || typeof id !== 'string') throw new Error('malformed');
    return { createdAt, id };
  } catch (cause) {
    throw new TypeError(`invalid cursor ${JSON.stringify(cursor)}`, { cause });
  }
}
