import type pg from 'pg';
import type {
  NodeFacts,
  RunStatus,
  StepEvent,
  StepStatus,
  WorkflowDefinition,
} from '@cyclone/core';
import type {
  BackfillResult,
  ClaimRequest,
  ClaimedStep,
  Completion,
  ExhaustedPage,
  ExhaustedQuery,
  QueueMetrics,
  QueueMetricsQuery,
  RedriveQuery,
  RedriveResult,
  RetryRequest,
  CycloneStore,
  Failure,
  FailureOutcome,
  FireDueSchedulesPass,
  FireDueSchedulesResult,
  HeldStep,
  NodeLocator,
  RunPage,
  RunQuery,
  ScheduleFire,
  ScheduleStatus,
  ScheduleUpsert,
  StoreListener,
  SignalDelivery,
  SignalReceipt,
  DueWaitsResult,
  EngineGauges,
  SubmittedRun,
  Subscription,
  UnservedStepsSweep,
} from './contract/index.js';
import { checkSchema } from './migration/check-schema.js';
import { redactUrl, toStoreError, type DatabaseTarget } from './db/driver-errors.js';
import { Executor, type Queryable } from './db/executor.js';
import { StatementCompiler } from './db/statement.js';
import { subscribe } from './db/subscribe.js';
import { tablesIn, type Tables } from './db/tables.js';
import { claim } from './execution/claim.js';
import { completeAll } from './execution/complete.js';
import { fail } from './execution/fail.js';
import { heartbeat } from './execution/heartbeat.js';
import { release } from './execution/release.js';
import { snooze } from './execution/snooze.js';
import { attemptLeadership } from './tables/workers/attempt-leadership.js';
import { failUnservedSteps } from './maintenance/fail-unserved-steps.js';
import { reclaimExpired } from './maintenance/reclaim-expired.js';
import { removeWorker } from './tables/workers/remove-worker.js';
import { resignLeadership } from './tables/workers/resign-leadership.js';
import { upsertWorker } from './tables/workers/upsert-worker.js';
import { defaultMigrationsFolder } from './migration/migrate.js';
import { deleteFinishedRuns } from './tables/runs/delete-finished-runs.js';
import { expireRunDeadlines } from './maintenance/expire-run-deadlines.js';
import { cancelRun } from './settlement/cancel-run-tree.js';
import { listExhausted } from './operator/list-exhausted.js';
import { collectQueueMetrics } from './reads/collect-queue-metrics.js';
import { pauseRun } from './operator/pause-run.js';
import { redrive } from './operator/redrive.js';
import { resumeRun } from './operator/resume-run.js';
import { retryRun } from './operator/retry-run.js';
import { TerminalRunStates } from './tables/terminal-states.js';
import { readEvents, readLeafOutputs, readNodeOutput, readSteps } from './reads/read-steps.js';
import { readNodeFacts } from './reads/read-node-facts.js';
import { readRun, readRunPage, readRuns } from './reads/read-runs.js';
import { readEngineGauges } from './reads/read-engine-gauges.js';
import { findStoredDefinition } from './tables/workflows/find-stored-definition.js';
import { backfillSchedule } from './schedules/backfill-schedule.js';
import { databaseNow } from './db/database-now.js';
import { fireDueSchedules } from './schedules/fire-due-schedules.js';
import {
  getSchedule,
  listScheduleFires,
  listSchedules,
  pauseSchedule,
  resumeSchedule,
  upsertSchedule,
} from './schedules/schedule-commands.js';
import { settleChain } from './settlement/settle-follow-ups.js';
import { settleMarkedRun } from './settlement/settle-marked-run.js';
import { settlePending } from './settlement/settle-pending.js';
import type { NewRun } from './contract/new-run.js';
import { registerWorkflows } from './tables/workflows/register-workflows.js';
import { submit } from './tables/runs/insert-new-runs.js';
import { settleParentOf } from './settlement/settle-parent-of.js';
import { startSubmittedChildren } from './settlement/start-submitted-children.js';
import { deliverSignal } from './submission/deliver-signal.js';
import { fireDueWaits } from './maintenance/fire-due-waits.js';

/** Options of a {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /** The pool every query runs on; the store never ends a pool it was given. */
  readonly pool: pg.Pool;
  /**
   * Postgres schema of Cyclone's tables.
   * @defaultValue `'public'`
   */
  readonly schema?: string;
  /** The URL the pool was opened from, named (without its password) in connection errors. */
  readonly connectionString?: string;
  /**
   * The migrations {@link PostgresStore.checkSchema} expects to find applied.
   * @defaultValue the migrations shipped with this package
   */
  readonly migrationsFolder?: string;
}

/**
 * Cyclone's PostgreSQL store: the only place that speaks SQL. A thin facade over one module per
 * stage of a step's life (`submission/`, `execution/`, `settlement/`, `maintenance/`, `reads/`),
 * each a function taking the executor. Every state write is one of core's transitions, fenced by
 * the states the table allows (and, for a worker's writes, by its claim token), and commits
 * together with its events. Every error leaves it as one of Cyclone's typed errors.
 */
export class PostgresStore implements CycloneStore {
  /** The qualified names of the store's tables. */
  readonly tables: Tables;
  private readonly pool: pg.Pool;
  private readonly exec: Executor;
  private readonly target: DatabaseTarget;
  private readonly migrationsFolder: string;

  constructor(options: PostgresStoreOptions) {
    this.pool = options.pool;
    this.tables = tablesIn(options.schema);
    this.exec = new Executor(this.pool, new StatementCompiler(this.tables), this.pool);
    this.target = { description: describePool(options), schema: this.tables.schema };
    this.migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
  }

  /**
   * Inserts runs with all their steps in one statement, on the pool or on the caller's own
   * transaction, then starts the child runs of child nodes that wait from the start. A run whose
   * idempotency key exists already is not inserted; its existing id is returned with
   * `created: false`.
   */
  submit(runs: readonly NewRun[], tx?: Queryable): Promise<SubmittedRun[]> {
    return this.guard('submit', async () => {
      const db = tx ? this.exec.on(tx) : this.exec;
      const submitted = await submit(db, runs);
      await startSubmittedChildren(db, runs, submitted, tx !== undefined);
      return submitted;
    });
  }

  /**
   * Delivers a signal to a run under its lock: stored (once per signal id), and consumed at once
   * by the first node that waits for its name, or kept until one does.
   */
  async signal(delivery: SignalDelivery): Promise<SignalReceipt> {
    const receipt = await this.guard('signal', () => deliverSignal(this.exec, delivery));
    // A signal that completed a child run: its parent's child node learns of it now.
    if (receipt.consumedBy !== null) await settleParentOf(this.exec, delivery.runId);
    return receipt;
  }

  /** Fires due timers and lapses due max waits, at most `limit` of each. */
  fireDueWaits(limit = 100): Promise<DueWaitsResult> {
    return this.guard('fireDueWaits', () => fireDueWaits(this.exec, limit));
  }

  /** Claims available steps of the given kinds whose time has come, oldest first. */
  claim(request: ClaimRequest): Promise<ClaimedStep[]> {
    return this.guard('claim', () => claim(this.exec, request));
  }

  /**
   * Records handler successes in one statement, which also marks the runs that need settling;
   * then settles them. Returns the ids whose completion was accepted; the others were fenced out
   * and nothing of them was written. A run whose settlement fails stays marked and is settled by
   * {@link PostgresStore.settlePending}.
   */
  complete(completions: readonly Completion[]): Promise<Set<string>> {
    return this.guard('complete', () => completeAll(this.exec, completions));
  }

  /** Records a handler failure: retried after its backoff, or discarded with the run settled. */
  fail(failure: Failure): Promise<FailureOutcome> {
    return this.guard('fail', () => fail(this.exec, failure));
  }

  /** Delays a running step without charging an attempt (`snooze(d)`); false when fenced out. */
  snooze(stepId: string, claimToken: string, delayMs: number): Promise<boolean> {
    return this.guard('snooze', () => snooze(this.exec, stepId, claimToken, delayMs));
  }

  /** Gives a running step back without charging an attempt (graceful shutdown); false when fenced out. */
  release(stepId: string, claimToken: string): Promise<boolean> {
    return this.guard('release', () => release(this.exec, stepId, claimToken));
  }

  /** Extends the leases of held steps; returns the ids still held (the others were lost). */
  heartbeat(held: readonly HeldStep[], leaseMs: number): Promise<Set<string>> {
    return this.guard('heartbeat', () => heartbeat(this.exec, held, leaseMs));
  }

  /**
   * The recovery sweep: steps whose lease expired go back to available (reclaims + 1, no attempt
   * charged, no backoff), or are discarded with `reclaim_limit` once reclaimed `maxReclaims`
   * times. Returns how many steps it moved.
   */
  reclaimExpired(limit = 500): Promise<number> {
    return this.guard('reclaimExpired', () => reclaimExpired(this.exec, limit));
  }

  /** Settles runs one by one, each in its own transaction that also clears its settlement marker. */
  async settle(runIds: readonly string[]): Promise<void> {
    await this.guard('settle', async () => {
      for (const runId of new Set(runIds)) {
        await settleChain(this.exec, await settleMarkedRun(this.exec, runId));
      }
    });
  }

  /** Settles up to `limit` runs left in the settlement outbox; returns how many it settled. */
  settlePending(limit = 100): Promise<number> {
    return this.guard('settlePending', () => settlePending(this.exec, limit));
  }

  /**
   * Fails steps that no live worker can run: available for longer than `graceMs` while workers
   * are live and none of them handles the step's kind. Returns how many steps it failed.
   */
  failUnservedSteps(sweep: UnservedStepsSweep): Promise<number> {
    return this.guard('failUnservedSteps', () => failUnservedSteps(this.exec, sweep));
  }

  /**
   * Takes or renews the named leader lease for `holder`; true while `holder` leads. Replicas
   * call it every interval, so a leader that dies is replaced once its lease expires.
   */
  attemptLeadership(name: string, holder: string, leaseMs: number): Promise<boolean> {
    return this.guard('attemptLeadership', () =>
      attemptLeadership(this.exec, { name, holder, leaseMs }),
    );
  }

  /** Gives up the named lease if `holder` has it. */
  resignLeadership(name: string, holder: string): Promise<void> {
    return this.guard('resignLeadership', () => resignLeadership(this.exec, { name, holder }));
  }

  /** Registers (or refreshes) a live worker and the kinds it handles. */
  registerWorker(workerId: string, kinds: readonly string[]): Promise<void> {
    return this.guard('registerWorker', () => upsertWorker(this.exec, { workerId, kinds }));
  }

  /**
   * Stores the workflow definitions a worker or scheduler was given, by name and hash, so that any
   * process can start them as child runs or schedule fires (the newest registration wins).
   */
  registerWorkflows(definitions: readonly WorkflowDefinition[]): Promise<void> {
    return this.guard('registerWorkflows', () => registerWorkflows(this.exec, definitions));
  }

  /** Forgets a stopped worker. */
  deregisterWorker(workerId: string): Promise<void> {
    return this.guard('deregisterWorker', () => removeWorker(this.exec, { workerId }));
  }

  /**
   * Fails fast when the database is unreachable (`DatabaseUnreachableError`) or lacks a migration
   * this package ships (`SchemaNotMigratedError`, naming it and saying to run `cyclone migrate`).
   */
  checkSchema(): Promise<void> {
    return this.guard('checkSchema', () => checkSchema(this.exec, this.migrationsFolder));
  }

  /** One run's status, or undefined for an unknown id. */
  getRun(runId: string): Promise<RunStatus | undefined> {
    return this.guard('getRun', () => readRun(this.exec, runId));
  }

  /** The statuses of several runs (unknown ids are left out). */
  getRuns(runIds: readonly string[]): Promise<RunStatus[]> {
    return this.guard('getRuns', () => readRuns(this.exec, runIds));
  }

  /** Runs newest first, filtered, one page at a time (follow `nextCursor`). */
  listRuns(query: RunQuery = {}): Promise<RunPage> {
    return this.guard('listRuns', () => readRunPage(this.exec, query));
  }

  /** A run's steps: nodes in declaration order, then item tasks in item order, with outputs. */
  listSteps(runId: string): Promise<StepStatus[]> {
    return this.guard('listSteps', () => readSteps(this.exec, runId));
  }

  /** A run's events in order, after the event id `afterId` when given. */
  listEvents(runId: string, afterId?: number, limit = 10_000): Promise<StepEvent[]> {
    return this.guard('listEvents', () => readEvents(this.exec, runId, afterId, limit));
  }

  /** A node's state and output (item tasks excluded), or undefined for an unknown node. */
  nodeOutput(runId: string, node: string): Promise<{ state: string; output: unknown } | undefined> {
    return this.guard('nodeOutput', () => readNodeOutput(this.exec, runId, node));
  }

  /** The outputs of a run's completed leaf nodes: its result. */
  leafOutputs(runId: string): Promise<{ node: string; output: unknown }[]> {
    return this.guard('leafOutputs', () => readLeafOutputs(this.exec, runId));
  }

  /** What `explainNode` decides from, for one step; `'run'` / `'node'` when unknown. */
  nodeFacts(
    runId: string,
    locator: NodeLocator,
    livenessMs: number,
  ): Promise<NodeFacts | 'run' | 'node'> {
    return this.guard('nodeFacts', () => readNodeFacts(this.exec, runId, locator, livenessMs));
  }

  /** The newest definition stored under a workflow name (unvalidated JSON), or undefined. */
  storedDefinition(name: string): Promise<unknown> {
    return this.guard('storedDefinition', () => findStoredDefinition(this.exec, { name }));
  }

  /** Runs by state, the DLQ by reason and each kind's queue: aggregates, for scrapes. */
  engineGauges(): Promise<EngineGauges> {
    return this.guard('engineGauges', () => readEngineGauges(this.exec));
  }

  /**
   * Cancels a running or paused run: its open steps (and the runs of its waiting child nodes) and
   * the run, in one transaction. @throws NotFoundError, AlreadyTerminalError
   */
  async cancelRun(runId: string): Promise<void> {
    const cancelled = await this.guard('cancelRun', () => cancelRun(this.exec, runId));
    // A cancelled child run discards its parent's child node: settle the parent now (the outbox
    // holds it should this fail).
    if (cancelled.parentRunId !== null) await settleChain(this.exec, [cancelled.parentRunId]);
  }

  /**
   * Retries a discarded node (or every discard) of a run, reopening what its discard cancelled; a
   * retried child node reuses its child run, which starts again when it failed or was cancelled.
   * @throws NotFoundError, NoExhaustedNodeError, AlreadyTerminalError, AlreadyPausedError,
   *   ChildNotRetryableError
   */
  async retryRun(
    runId: string,
    request: RetryRequest,
  ): Promise<{ retried: number; reopened: number }> {
    const done = await this.guard('retryRun', () => retryRun(this.exec, runId, request));
    await settleChain(this.exec, done.followUps);
    return { retried: done.retried, reopened: done.reopened };
  }

  /** Pauses a running run. @throws NotFoundError, AlreadyPausedError, AlreadyTerminalError */
  async pauseRun(runId: string): Promise<void> {
    await this.guard('pauseRun', () => pauseRun(this.exec, runId));
  }

  /** Resumes a paused run. @throws NotFoundError, NotPausedError */
  async resumeRun(runId: string): Promise<void> {
    await this.guard('resumeRun', () => resumeRun(this.exec, runId));
    // A resume that ended a child run (what it applied completed the run) settles its parent.
    await settleParentOf(this.exec, runId);
  }

  /**
   * Reads queue depth and oldest available age per kind and the DLQ's size per reason, bounded
   * (see {@link QueueMetricsQuery}): the database side of Prometheus's `/metrics`.
   */
  collectQueueMetrics(query: QueueMetricsQuery = {}): Promise<QueueMetrics> {
    return this.guard('collectQueueMetrics', () => collectQueueMetrics(this.exec, query));
  }

  /** The DLQ: discarded steps newest first, by reason and workflow. @throws ValidationError for a bad cursor */
  listExhausted(query: ExhaustedQuery = {}): Promise<ExhaustedPage> {
    return this.guard('listExhausted', () => listExhausted(this.exec, query));
  }

  /** Retries every matching discarded step, one transaction per run. */
  redrive(query: RedriveQuery = {}): Promise<RedriveResult> {
    return this.guard('redrive', () => redrive(this.exec, query));
  }

  /** Fails running runs past their deadline (see `expireRunDeadlines`); returns how many. */
  expireRunDeadlines(limit = 100): Promise<number> {
    return this.guard('expireRunDeadlines', () => expireRunDeadlines(this.exec, limit));
  }

  /** Deletes finished runs older than the retention, in one bounded batch; returns how many. */
  deleteFinishedRuns(retentionMs: number, limit = 500): Promise<number> {
    return this.guard('deleteFinishedRuns', () =>
      deleteFinishedRuns(this.exec, { retentionMs, terminalStates: TerminalRunStates, limit }),
    );
  }

  /** Creates or replaces a schedule (and stores the definition it was given); returns it. */
  upsertSchedule(schedule: ScheduleUpsert): Promise<ScheduleStatus> {
    return this.guard('upsertSchedule', () => upsertSchedule(this.exec, schedule));
  }

  /** Disables a schedule (the one UPDATE pause and unschedule share); undefined for an unknown id. */
  pauseSchedule(id: string): Promise<ScheduleStatus | undefined> {
    return this.guard('pauseSchedule', () => pauseSchedule(this.exec, id));
  }

  /** Enables a schedule at its first tick after now; undefined for an unknown id. */
  resumeSchedule(id: string): Promise<ScheduleStatus | undefined> {
    return this.guard('resumeSchedule', () => resumeSchedule(this.exec, id));
  }

  /** One schedule, or undefined. */
  getSchedule(id: string): Promise<ScheduleStatus | undefined> {
    return this.guard('getSchedule', () => getSchedule(this.exec, id));
  }

  /** Every schedule, by id. */
  listSchedules(): Promise<ScheduleStatus[]> {
    return this.guard('listSchedules', () => listSchedules(this.exec));
  }

  /** A schedule's fires, newest tick first. */
  listScheduleFires(id: string, limit: number): Promise<ScheduleFire[]> {
    return this.guard('listScheduleFires', () => listScheduleFires(this.exec, id, limit));
  }

  /** One run for every past tick in `[from, to)` that has none; undefined for an unknown id. */
  backfillSchedule(id: string, from: Date, to: Date): Promise<BackfillResult | undefined> {
    return this.guard('backfillSchedule', () => backfillSchedule(this.exec, id, from, to));
  }

  /** The database's clock. */
  databaseNow(): Promise<Date> {
    return this.guard('databaseNow', () => databaseNow(this.exec));
  }

  /** One pass of the schedules scanner over the due enabled schedules. */
  fireDueSchedules(pass: FireDueSchedulesPass): Promise<FireDueSchedulesResult> {
    return this.guard('fireDueSchedules', () => fireDueSchedules(this.exec, pass));
  }

  /** Listens for the database's wake-ups on one connection of the pool. */
  subscribe(listener: StoreListener): Promise<Subscription> {
    return this.guard('subscribe', () => subscribe(this.pool, listener));
  }

  /** Runs one operation and maps whatever the driver threw to a typed error (see `toStoreError`). */
  private async guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw toStoreError(error, operation, this.target);
    }
  }
}

/** Where the store's pool connects, for error messages, without a password. */
function describePool(options: PostgresStoreOptions): string {
  if (options.connectionString) return redactUrl(options.connectionString);
  const o = (options.pool as { options?: Partial<pg.PoolConfig> }).options ?? {};
  if (typeof o.connectionString === 'string') return redactUrl(o.connectionString);
  const host = typeof o.host === 'string' ? o.host : 'localhost';
  return `postgres://${o.user ?? ''}${o.user ? '@' : ''}${host}:${o.port ?? 5432}/${o.database ?? ''}`;
}
