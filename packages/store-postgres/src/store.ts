import type pg from 'pg';
import type { StoreLogger } from './contract/store-logger.js';
import { processWarningLogger } from './contract/store-logger.js';
import { describePool } from './db/describe-pool.js';
import { toStoreError, type DatabaseTarget } from './db/driver-errors.js';
import { SqlRunner } from './db/sql-runner.js';
import { poolerModeOf, type PoolerMode } from './db/pooler.js';
import { StatementCompiler } from './db/statement.js';
import { tablesIn, type Tables } from './db/tables.js';
import { defaultMigrationsFolder } from './migration/migrate.js';
import { WorkFailure } from './db/work-failure.js';
import type { PostgresStoreOptions } from './store-options.js';
import type {
  NodeFacts,
  NodeMoveRequest,
  RunStatus,
  StepEvent,
  StepStatus,
  WorkflowDefinition,
} from '@cyclone/core';
import type {
  BackfillResult,
  ConcurrencyLimitSetting,
  KindLimits,
  FairShareSetting,
  KindFairShare,
  RateLimitSetting,
  ClaimRequest,
  ClaimedStep,
  Completion,
  CompletionWithin,
  CycloneStore,
  DueWaitsResult,
  EventPartitionSettings,
  EventPartitionsResult,
  ExhaustedPage,
  ExhaustedQuery,
  Failure,
  FailureOutcome,
  FireDueSchedulesPass,
  FireDueSchedulesResult,
  ForcedMove,
  HeldStep,
  KindMinuteCounts,
  KindQueueOverview,
  MetricsQuery,
  MetricsSnapshot,
  NewJobs,
  NewRun,
  NodeLocator,
  Queryable,
  RedriveQuery,
  RedriveResult,
  RetryRequest,
  RunPage,
  RunQuery,
  ScheduleFire,
  ScheduleStatus,
  ScheduleUpsert,
  SignalDelivery,
  SignalReceipt,
  StoreListener,
  SubmittedRun,
  Subscription,
  TransactionalCompletion,
  TransactionalWork,
  UnservedStepsSweep,
  QueueOverviewQuery,
  StatsMinute,
  StatsMinutesQuery,
  WorkerDetails,
  WorkerOverviewQuery,
  WorkersOverview,
} from './contract/index.js';
import { databaseNow } from './db/database-now.js';
import { subscribe } from './db/subscribe.js';
import { claim } from './execution/claim.js';
import { LimitedKinds } from './execution/limited-kinds.js';
import { ClaimPositions } from './execution/claim-positions.js';
import { completeAll, completeInTransaction, completeWithin } from './execution/complete.js';
import { settleAfterCommit, type WithFollowUps } from './settlement/settle-after-commit.js';
import { fail } from './execution/fail.js';
import { heartbeat } from './execution/heartbeat.js';
import { release } from './execution/release.js';
import { snooze } from './execution/snooze.js';
import { expireRunDeadlines } from './maintenance/expire-run-deadlines.js';
import { failUnservedSteps } from './maintenance/fail-unserved-steps.js';
import { fireDueWaits } from './maintenance/fire-due-waits.js';
import { reclaimExpired } from './maintenance/reclaim-expired.js';
import { checkSchema } from './migration/check-schema.js';
import { cancelRun } from './operator/cancel-run.js';
import { forceStep } from './operator/force-step.js';
import { listExhausted } from './operator/list-exhausted.js';
import { listLimits, removeLimit, setConcurrencyLimit, setRateLimit } from './operator/limits.js';
import { listFairShares, removeFairShare, setFairShare } from './operator/fair-shares.js';
import { pauseRun } from './operator/pause-run.js';
import { redrive } from './operator/redrive.js';
import { resumeRun } from './operator/resume-run.js';
import { retryRun } from './operator/retry-run.js';
import { collectMetrics } from './reads/collect-metrics.js';
import { queueOverview, statsMinutes, workerOverview } from './reads/overview.js';
import { readNodeFacts } from './reads/read-node-facts.js';
import { readRun, readRunPage, readRuns } from './reads/read-runs.js';
import { readEvents, readNodeOutput, readSteps } from './reads/read-steps.js';
import { backfillSchedule } from './schedules/backfill-schedule.js';
import { fireDueSchedules } from './schedules/fire-due-schedules.js';
import {
  deleteSchedule,
  getSchedule,
  listScheduleFires,
  listSchedules,
  pauseSchedule,
  resumeSchedule,
  upsertSchedule,
} from './schedules/schedule-commands.js';
import { settlePending } from './maintenance/settle-pending.js';
import { deliverSignal } from './submission/deliver-signal.js';
import { submit } from './submission/submit.js';
import { deleteFinishedRuns } from './tables/runs/delete-finished-runs.js';
import { insertNewJobs } from './tables/runs/insert-jobs.js';
import { maintainEventPartitions } from './maintenance/maintain-event-partitions.js';
import { deleteExpiredCache } from './tables/cache/delete-expired-cache.js';
import { getLeafOutputs } from './tables/steps/get-leaf-outputs.js';
import { addStatsMinutes } from './tables/stats/add-stats-minutes.js';
import { deleteOldStatsMinutes } from './tables/stats/delete-old-stats-minutes.js';
import { TerminalRunStates } from './tables/transitions/terminal-states.js';
import { attemptLeadership } from './tables/workers/attempt-leadership.js';
import { removeWorker } from './tables/workers/remove-worker.js';
import { resignLeadership } from './tables/workers/resign-leadership.js';
import { upsertWorker } from './tables/workers/upsert-worker.js';
import { findStoredDefinition } from './tables/workflows/find-stored-definition.js';
import { registerWorkflows } from './tables/workflows/register-workflows.js';

/**
 * Cyclone's PostgreSQL store: the only place that speaks SQL. A facade that delegates each
 * operation of the store contract to its module (`execution/`, `operator/`, `schedules/`,
 * `maintenance/`, `reads/`, `submission/`), or straight to its statement in `tables/` when the
 * operation is that statement (`enqueue`, `leafOutputs`, the workers' registrations, the
 * retention deletes). Every operation runs through one of two wrappers below: `guard` maps
 * whatever the driver threw to Cyclone's typed errors, and `guardAndSettle` also settles, once the
 * operation committed, the runs it left in the settlement outbox. Every state write is one of
 * core's transitions, fenced by the states the table allows (and, for a worker's writes, by its
 * claim token), and commits together with its events.
 */
export class PostgresStore implements CycloneStore {
  /** The qualified names of the store's tables. */
  readonly tables: Tables;
  /** What stands between the store's pool and PostgreSQL. */
  readonly pooler: PoolerMode;
  protected readonly pool: pg.Pool;
  /** Where transactional completions open their transactions (`transactionPool`). */
  protected readonly transactionPool: pg.Pool;
  /** Where `subscribe` LISTENs; none behind a transaction-mode pooler without a listen pool. */
  protected readonly listenPool: pg.Pool | undefined;
  protected readonly exec: SqlRunner;
  protected readonly target: DatabaseTarget;
  /** The listen pool's, for its errors; the main pool's when they are the same. */
  protected readonly listenTarget: DatabaseTarget;
  protected readonly migrationsFolder: string;
  protected readonly logger: StoreLogger;

  constructor(options: PostgresStoreOptions) {
    this.pool = options.pool;
    this.transactionPool = options.transactionPool ?? options.pool;
    this.tables = tablesIn(options.schema, options.tableLayout);
    this.pooler = poolerModeOf(options.pooler, 'store options');
    // Behind a transaction-mode pooler: no named statements, and LISTEN only on a pool of its own.
    const direct = this.pooler !== 'transaction';
    this.listenPool = options.listenPool ?? (direct ? this.pool : undefined);
    this.exec = new SqlRunner(
      this.pool,
      new StatementCompiler(this.tables),
      this.pool,
      direct,
      options.childInputCheck,
    );
    const { schema } = this.tables;
    this.target = { description: describePool(options.pool, options.connectionString), schema };
    this.listenTarget = options.listenPool
      ? { description: describePool(options.listenPool, options.listenConnectionString), schema }
      : this.target;
    this.migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
    this.logger = options.logger ?? processWarningLogger;
  }

  /**
   * Runs one operation and maps whatever the driver threw to a typed error (see `toStoreError`);
   * what the application's own code threw inside it (a {@link WorkFailure}) is handed on unchanged.
   */
  protected async guard<T>(
    operation: string,
    work: () => Promise<T>,
    target: DatabaseTarget = this.target,
  ): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof WorkFailure) throw error.error;
      throw toStoreError(error, operation, target);
    }
  }

  /**
   * Runs an operation that may leave runs in the settlement outbox, then settles them: the one
   * after-commit step of the store. A settlement that fails there is logged and left to the
   * `settle-pending` scanner; the operation's result stands.
   */
  protected async guardAndSettle<T>(
    operation: string,
    work: () => Promise<WithFollowUps<T>>,
  ): Promise<T> {
    const { value, followUps } = await this.guard(operation, work);
    if (followUps.length > 0) await settleAfterCommit(this.exec, followUps, this.logger);
    return value;
  }

  /** The kinds this store's claims last found under a flow limit. */
  private readonly limitedKinds = new LimitedKinds();

  /** Where this store's claims of each kind start walking the claim index (decision 335). */
  private readonly claimPositions = new ClaimPositions();

  submit(runs: readonly NewRun[], tx?: Queryable): Promise<SubmittedRun[]> {
    const db = tx ? this.exec.on(tx) : this.exec;
    return this.guardAndSettle('submit', () => submit(db, runs, tx !== undefined));
  }

  enqueue(jobs: NewJobs, tx?: Queryable): Promise<SubmittedRun[]> {
    const db = tx ? this.exec.on(tx) : this.exec;
    return this.guard('enqueue', () => insertNewJobs(db, jobs));
  }

  signal(delivery: SignalDelivery): Promise<SignalReceipt> {
    return this.guardAndSettle('signal', () => deliverSignal(this.exec, delivery));
  }

  claim(request: ClaimRequest): Promise<ClaimedStep[]> {
    return this.guard('claim', () =>
      claim(this.exec, request, this.limitedKinds, this.claimPositions),
    );
  }

  complete(completions: readonly Completion[]): Promise<Set<string>> {
    return this.guardAndSettle('complete', () => completeAll(this.exec, completions));
  }

  completeInTransaction<T>(
    held: HeldStep,
    work: TransactionalWork<T>,
  ): Promise<TransactionalCompletion<T>> {
    return this.guardAndSettle('completeInTransaction', () =>
      completeInTransaction(this.exec, this.transactionPool, held, work),
    );
  }

  completeWithin(tx: Queryable, completion: Completion): Promise<CompletionWithin> {
    return this.guard('completeWithin', () => completeWithin(this.exec.on(tx), completion));
  }

  settleCommitted(runIds: readonly string[]): Promise<void> {
    return settleAfterCommit(this.exec, runIds, this.logger);
  }

  fail(failure: Failure): Promise<FailureOutcome> {
    return this.guardAndSettle('fail', () => fail(this.exec, failure));
  }

  snooze(stepId: string, claimToken: string, delayMs: number): Promise<boolean> {
    return this.guard('snooze', () => snooze(this.exec, stepId, claimToken, delayMs));
  }

  release(stepId: string, claimToken: string): Promise<boolean> {
    return this.guard('release', () => release(this.exec, stepId, claimToken));
  }

  heartbeat(held: readonly HeldStep[], leaseMs: number): Promise<Set<string>> {
    return this.guard('heartbeat', () => heartbeat(this.exec, held, leaseMs));
  }

  registerWorker(
    workerId: string,
    kinds: readonly string[],
    details?: WorkerDetails,
  ): Promise<void> {
    return this.guard('registerWorker', () =>
      upsertWorker(this.exec, {
        workerId,
        kinds,
        host: details?.host ?? null,
        pid: details?.pid ?? null,
        concurrency: details?.concurrency ?? null,
      }),
    );
  }

  async addStatsMinutes(counts: readonly KindMinuteCounts[]): Promise<void> {
    if (counts.length === 0) return;
    await this.guard('addStatsMinutes', () =>
      addStatsMinutes(this.exec, {
        kinds: counts.map((c) => c.kind),
        completed: counts.map((c) => c.completed),
        failed: counts.map((c) => c.failed),
        waitBuckets: counts.flatMap((c) => c.waitBuckets),
      }),
    );
  }

  deregisterWorker(workerId: string): Promise<void> {
    return this.guard('deregisterWorker', () => removeWorker(this.exec, { workerId }));
  }

  registerWorkflows(definitions: readonly WorkflowDefinition[]): Promise<void> {
    return this.guard('registerWorkflows', () => registerWorkflows(this.exec, definitions));
  }

  checkSchema(): Promise<void> {
    return this.guard('checkSchema', () => checkSchema(this.exec, this.migrationsFolder));
  }

  fireDueWaits(limit = 100): Promise<DueWaitsResult> {
    return this.guardAndSettle('fireDueWaits', () => fireDueWaits(this.exec, limit));
  }

  reclaimExpired(limit = 500): Promise<number> {
    return this.guardAndSettle('reclaimExpired', () => reclaimExpired(this.exec, limit));
  }

  settlePending(limit = 100): Promise<number> {
    return this.guard('settlePending', () => settlePending(this.exec, this.logger, limit));
  }

  failUnservedSteps(sweep: UnservedStepsSweep): Promise<number> {
    return this.guardAndSettle('failUnservedSteps', () => failUnservedSteps(this.exec, sweep));
  }

  expireRunDeadlines(limit = 100): Promise<number> {
    return this.guardAndSettle('expireRunDeadlines', () => expireRunDeadlines(this.exec, limit));
  }

  deleteFinishedRuns(retentionMs: number, limit = 500): Promise<number> {
    return this.guard('deleteFinishedRuns', () =>
      deleteFinishedRuns(this.exec, { retentionMs, terminalStates: TerminalRunStates, limit }),
    );
  }

  maintainEventPartitions(settings?: EventPartitionSettings): Promise<EventPartitionsResult> {
    return this.guard('maintainEventPartitions', () =>
      maintainEventPartitions(this.exec, settings),
    );
  }

  deleteExpiredCache(limit = 1000): Promise<number> {
    return this.guard('deleteExpiredCache', () => deleteExpiredCache(this.exec, { limit }));
  }

  deleteOldStatsMinutes(keepMs: number, limit = 5_000): Promise<number> {
    return this.guard('deleteOldStatsMinutes', () =>
      deleteOldStatsMinutes(this.exec, { keepMs, limit }),
    );
  }

  attemptLeadership(name: string, holder: string, leaseMs: number): Promise<boolean> {
    return this.guard('attemptLeadership', () =>
      attemptLeadership(this.exec, { name, holder, leaseMs }),
    );
  }

  resignLeadership(name: string, holder: string): Promise<void> {
    return this.guard('resignLeadership', () => resignLeadership(this.exec, { name, holder }));
  }

  cancelRun(runId: string): Promise<void> {
    return this.guardAndSettle('cancelRun', () => cancelRun(this.exec, runId));
  }

  retryRun(runId: string, request: RetryRequest): Promise<{ retried: number; reopened: number }> {
    return this.guardAndSettle('retryRun', () => retryRun(this.exec, runId, request));
  }

  forceStep(runId: string, node: string, move: NodeMoveRequest): Promise<ForcedMove> {
    return this.guardAndSettle('forceStep', () => forceStep(this.exec, runId, node, move));
  }

  async pauseRun(runId: string): Promise<void> {
    await this.guard('pauseRun', () => pauseRun(this.exec, runId));
  }

  async resumeRun(runId: string): Promise<void> {
    await this.guardAndSettle('resumeRun', () => resumeRun(this.exec, runId));
  }

  listExhausted(query: ExhaustedQuery = {}): Promise<ExhaustedPage> {
    return this.guard('listExhausted', () => listExhausted(this.exec, query));
  }

  setConcurrencyLimit(limit: ConcurrencyLimitSetting): Promise<void> {
    return this.guard('setConcurrencyLimit', () => setConcurrencyLimit(this.exec, limit));
  }

  setRateLimit(limit: RateLimitSetting): Promise<void> {
    return this.guard('setRateLimit', () => setRateLimit(this.exec, limit));
  }

  removeLimit(kind: string, which: 'concurrency' | 'rate'): Promise<boolean> {
    return this.guard('removeLimit', () => removeLimit(this.exec, kind, which));
  }

  listLimits(): Promise<KindLimits[]> {
    return this.guard('listLimits', () => listLimits(this.exec));
  }

  setFairShare(setting: FairShareSetting): Promise<void> {
    return this.guard('setFairShare', () => setFairShare(this.exec, setting));
  }

  removeFairShare(kind: string): Promise<boolean> {
    return this.guard('removeFairShare', () => removeFairShare(this.exec, kind));
  }

  listFairShares(): Promise<KindFairShare[]> {
    return this.guard('listFairShares', () => listFairShares(this.exec));
  }

  redrive(query: RedriveQuery = {}): Promise<RedriveResult> {
    return this.guardAndSettle('redrive', () => redrive(this.exec, query));
  }

  getRun(runId: string): Promise<RunStatus | undefined> {
    return this.guard('getRun', () => readRun(this.exec, runId));
  }

  getRuns(runIds: readonly string[]): Promise<RunStatus[]> {
    return this.guard('getRuns', () => readRuns(this.exec, runIds));
  }

  listRuns(query: RunQuery = {}): Promise<RunPage> {
    return this.guard('listRuns', () => readRunPage(this.exec, query));
  }

  listSteps(runId: string): Promise<StepStatus[]> {
    return this.guard('listSteps', () => readSteps(this.exec, runId));
  }

  listEvents(runId: string, afterId?: number, limit = 10_000): Promise<StepEvent[]> {
    return this.guard('listEvents', () => readEvents(this.exec, runId, afterId, limit));
  }

  nodeOutput(runId: string, node: string): Promise<{ state: string; output: unknown } | undefined> {
    return this.guard('nodeOutput', () => readNodeOutput(this.exec, runId, node));
  }

  leafOutputs(runId: string): Promise<{ node: string; output: unknown }[]> {
    return this.guard('leafOutputs', () => getLeafOutputs(this.exec, { runId }));
  }

  nodeFacts(
    runId: string,
    locator: NodeLocator,
    livenessMs: number,
  ): Promise<NodeFacts | 'run' | 'node'> {
    return this.guard('nodeFacts', () => readNodeFacts(this.exec, runId, locator, livenessMs));
  }

  storedDefinition(name: string): Promise<unknown> {
    return this.guard('storedDefinition', () => findStoredDefinition(this.exec, { name }));
  }

  collectMetrics(query: MetricsQuery = {}): Promise<MetricsSnapshot> {
    return this.guard('collectMetrics', () => collectMetrics(this.exec, query));
  }

  queueOverview(query: QueueOverviewQuery = {}): Promise<KindQueueOverview[]> {
    return this.guard('queueOverview', () => queueOverview(this.exec, query));
  }

  workerOverview(query: WorkerOverviewQuery = {}): Promise<WorkersOverview> {
    return this.guard('workerOverview', () => workerOverview(this.exec, query));
  }

  statsMinutes(query: StatsMinutesQuery): Promise<StatsMinute[]> {
    return this.guard('statsMinutes', () => statsMinutes(this.exec, query));
  }

  upsertSchedule(schedule: ScheduleUpsert): Promise<ScheduleStatus> {
    return this.guard('upsertSchedule', () => upsertSchedule(this.exec, schedule));
  }

  pauseSchedule(id: string): Promise<ScheduleStatus | undefined> {
    return this.guard('pauseSchedule', () => pauseSchedule(this.exec, id));
  }

  resumeSchedule(id: string): Promise<ScheduleStatus | undefined> {
    return this.guard('resumeSchedule', () => resumeSchedule(this.exec, id));
  }

  deleteSchedule(id: string): Promise<ScheduleStatus | undefined> {
    return this.guard('deleteSchedule', () => deleteSchedule(this.exec, id));
  }

  getSchedule(id: string): Promise<ScheduleStatus | undefined> {
    return this.guard('getSchedule', () => getSchedule(this.exec, id));
  }

  listSchedules(): Promise<ScheduleStatus[]> {
    return this.guard('listSchedules', () => listSchedules(this.exec));
  }

  listScheduleFires(id: string, limit: number): Promise<ScheduleFire[]> {
    return this.guard('listScheduleFires', () => listScheduleFires(this.exec, id, limit));
  }

  backfillSchedule(id: string, from: Date, to: Date): Promise<BackfillResult | undefined> {
    return this.guardAndSettle('backfillSchedule', () => backfillSchedule(this.exec, id, from, to));
  }

  databaseNow(): Promise<Date> {
    return this.guard('databaseNow', () => databaseNow(this.exec));
  }

  fireDueSchedules(pass: FireDueSchedulesPass): Promise<FireDueSchedulesResult> {
    return this.guardAndSettle('fireDueSchedules', () => fireDueSchedules(this.exec, pass));
  }

  subscribe(listener: StoreListener): Promise<Subscription> {
    return this.guard('subscribe', () => subscribe(this.listenPool, listener), this.listenTarget);
  }
}
