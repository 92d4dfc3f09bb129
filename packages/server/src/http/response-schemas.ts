import { ExhaustedReasons } from '@cyclone/client';
import {
  CatchUpPolicy,
  ERROR_KINDS,
  EXPLAIN_REASONS,
  NODE_MOVE_TARGETS,
  OverlapPolicy,
  RUN_STATES,
  STEP_STATES,
} from '@cyclone/core';
import { z } from 'zod';

/*
 * The bodies the API answers with, as zod schemas of the client's own types: a time is a `Date`
 * here (the answer carries it as an ISO 8601 string, which is how the API description shows
 * `z.date()`). test/api-types.test.ts checks each schema against the type it describes, both ways,
 * so a field added to the client shows up here or fails the type-check. Each `meta({ id })` names
 * the schema in the description's `components`.
 */

const enumOf = <T extends string>(values: readonly T[]) => z.enum(values as [T, ...T[]]);

const runState = enumOf(RUN_STATES).meta({ id: 'RunState' });
const stepState = enumOf(STEP_STATES).meta({ id: 'StepState' });
const errorKind = enumOf(ERROR_KINDS).meta({ id: 'ErrorKind' });
const exhaustedReason = enumOf(ExhaustedReasons).meta({ id: 'ExhaustedReason' });

/** A child run as its parent shows it. */
const childRunSummary = z
  .object({ runId: z.string(), node: z.string(), stepId: z.string(), state: runState })
  .meta({ id: 'ChildRunSummary' });

/** `RunStatus`. */
export const runStatus = z
  .object({
    id: z.string(),
    workflow: z.string().meta({ description: 'Workflow name, or the kind of a standalone job' }),
    state: runState,
    errorKind: errorKind.nullable(),
    error: z.string().nullable(),
    failedNode: z.string().nullable(),
    parentRunId: z.string().nullable(),
    parentStepId: z.string().nullable(),
    children: z
      .array(childRunSummary)
      .readonly()
      .optional()
      .meta({ description: 'The runs its child nodes started; only on a single run' }),
    idempotencyKey: z.string().nullable(),
    deadlineAt: z.date().nullable(),
    failureCount: z.number().int(),
    reclaimCount: z.number().int(),
    createdAt: z.date(),
    startedAt: z.date().nullable(),
    endedAt: z.date().nullable(),
    totalRunTimeMs: z.number().nullable(),
  })
  .meta({ id: 'Run' });

/** `StepStatus`. */
export const stepStatus = z
  .object({
    id: z.string(),
    runId: z.string(),
    node: z.string(),
    nodeType: z.string(),
    kind: z.string().nullable(),
    state: stepState,
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    reclaims: z.number().int(),
    error: z.string().nullable(),
    errorKind: errorKind.nullable(),
    panicStack: z.string().nullable(),
    timedOut: z.boolean(),
    cached: z.boolean().optional().meta({
      description:
        "A task that completed with an output from its kind's result cache, without running (label Cached)",
    }),
    awaitingResource: z.boolean().optional().meta({
      description:
        "An available step whose time has come, held back by its kind's concurrency cap or rate limit (label AwaitingResource)",
    }),
    output: z.unknown().optional().meta({ description: 'The output once completed (JSON)' }),
    dependsOn: z.array(z.string()).readonly(),
    itemIndex: z.number().int().nullable(),
    maxParallel: z.number().int().nullable(),
    childRunId: z.string().nullable(),
    scheduledAt: z.date(),
    leaseExpiresAt: z.date().nullable(),
    createdAt: z.date(),
    startedAt: z.date().nullable(),
    endedAt: z.date().nullable(),
    waitSignals: z.array(z.string()).readonly().nullable(),
    waitN: z.number().int().nullable(),
    waitGathered: z.number().int(),
    waitDeadlineAt: z.date().nullable(),
    waitRemainingMs: z.number().nullable(),
  })
  .meta({ id: 'Step' });

/** `StepEvent`: one entry of a run's history. */
export const stepEvent = z
  .object({
    id: z.number().int(),
    at: z.date(),
    runId: z.string(),
    stepId: z.string().nullable(),
    node: z.string().nullable(),
    type: z.string().meta({ description: 'e.g. step_completed, run_failed, wait_lapsed' }),
    from: z.string().nullable(),
    to: z.string().nullable(),
    trigger: z.string().nullable(),
    errorKind: errorKind.nullable(),
    detail: z.record(z.string(), z.unknown()).readonly().nullable(),
    forced: z
      .boolean()
      .optional()
      .meta({ description: "An operator's move of a node only: whether it was forced" }),
    reason: z
      .string()
      .optional()
      .meta({ description: "An operator's move of a node only: the operator's reason" }),
  })
  .meta({ id: 'Event' });

/** `NodeExplanation`: why a node is not running. */
export const nodeExplanation = z
  .object({
    node: z.string(),
    state: stepState,
    label: z.string().optional(),
    reason: enumOf(EXPLAIN_REASONS),
    message: z.string(),
    waitingOn: z.array(z.string()).optional(),
    until: z.date().optional(),
    worker: z.string().optional(),
  })
  .meta({ id: 'NodeExplanation' });

/** `RunPage`. */
export const runPage = z
  .object({ runs: z.array(runStatus), nextCursor: z.string().optional() })
  .meta({ id: 'RunPage' });

/** `GET /api/runs/:id`. */
export const runWithSteps = z
  .object({ run: runStatus, steps: z.array(stepStatus).readonly() })
  .meta({ id: 'RunWithSteps' });

/** An operator action's answer: the run as it is afterwards. */
export const runAnswer = z.object({ run: runStatus }).meta({ id: 'RunAnswer' });

/** `ForcedMove`: what an operator's move of a node did. */
export const forcedMove = z
  .object({
    runId: z.string(),
    node: z.string(),
    stepId: z.string(),
    from: stepState,
    to: enumOf(NODE_MOVE_TARGETS),
    forced: z.boolean(),
  })
  .meta({ id: 'ForcedMove' });

/** `POST /api/runs/:id/nodes/:node/transition`: the move and the run as it is afterwards. */
export const moveAnswer = z.object({ move: forcedMove, run: runStatus }).meta({ id: 'MoveAnswer' });

/** `GET /api/runs/:id/events`. */
export const eventList = z
  .object({ events: z.array(stepEvent).readonly() })
  .meta({ id: 'EventList' });

/** `SubmittedRun`. */
export const submittedRun = z
  .object({
    runId: z.string(),
    created: z
      .boolean()
      .meta({ description: 'False for an idempotency key seen before (answered 200)' }),
  })
  .meta({ id: 'SubmittedRun' });

/** `SignalReceipt`. */
export const signalReceipt = z
  .object({ duplicate: z.boolean(), consumedBy: z.string().nullable() })
  .meta({ id: 'SignalReceipt' });

/** `ExhaustedStep`: one entry of the DLQ. */
const exhaustedStep = z
  .object({
    reason: exhaustedReason,
    runId: z.string(),
    workflow: z.string(),
    node: z.string(),
    stepId: z.string(),
    kind: z.string().nullable(),
    itemIndex: z.number().int().nullable(),
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    error: z.string().nullable(),
    endedAt: z.date(),
  })
  .meta({ id: 'ExhaustedStep' });

/** `ExhaustedPage`. */
export const exhaustedPage = z
  .object({ steps: z.array(exhaustedStep), nextCursor: z.string().optional() })
  .meta({ id: 'ExhaustedPage' });

/** `RedriveResult`. */
export const redriveResult = z
  .object({ retried: z.number().int(), runs: z.array(z.string()) })
  .meta({ id: 'RedriveResult' });

/** `ScheduleFire`. */
export const scheduleFire = z
  .object({
    scheduleId: z.string(),
    fireAt: z.date(),
    runId: z.string().nullable(),
    outcome: z.enum(['submitted', 'skipped', 'failed']),
    late: z.boolean(),
    error: z.string().optional(),
    createdAt: z.date(),
  })
  .meta({ id: 'ScheduleFire' });

/** `ScheduleStatus`. */
export const scheduleStatus = z
  .object({
    id: z.string(),
    kind: z.string().nullable(),
    workflow: z.string().nullable(),
    cron: z.string(),
    timezone: z.string(),
    input: z.unknown(),
    enabled: z.boolean(),
    overlap: enumOf(Object.values(OverlapPolicy)),
    catchUp: enumOf(Object.values(CatchUpPolicy)),
    catchUpLimit: z.number().int(),
    consecutiveFailures: z.number().int(),
    nextRunAt: z.date().nullable(),
    lastFireAt: z.date().nullable(),
    lastRunId: z.string().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.date(),
    updatedAt: z.date(),
  })
  .meta({ id: 'Schedule' });

/** A schedule with its newest fires. */
export const scheduleWithFires = scheduleStatus
  .extend({ fires: z.array(scheduleFire).readonly() })
  .meta({ id: 'ScheduleWithFires' });

/** `GET /api/schedules`. */
export const scheduleList = z
  .object({ schedules: z.array(scheduleWithFires) })
  .meta({ id: 'ScheduleList' });

/** `GET /api/schedules/:id`. */
export const scheduleAnswer = z
  .object({ schedule: scheduleWithFires })
  .meta({ id: 'ScheduleAnswer' });

/** `POST /api/schedules/:id/pause|resume`. */
export const scheduleChanged = z
  .object({ schedule: scheduleStatus })
  .meta({ id: 'ScheduleChanged' });

/** `GET /api/schedules/:id/fires`. */
export const fireList = z
  .object({ fires: z.array(scheduleFire).readonly() })
  .meta({ id: 'FireList' });

/** `BackfillResult`. */
export const backfillResult = z
  .object({ created: z.number().int(), skipped: z.number().int() })
  .meta({ id: 'BackfillResult' });

/** `GET /api/session`. */
export const sessionBody = z
  .object({
    access: z.enum(['full', 'read']),
    bearer: z.string().nullable(),
  })
  .meta({ id: 'Session' });

/** `GET /healthz`. */
export const health = z.object({ ok: z.literal(true) }).meta({ id: 'Health' });

/** A rate limit's period as it was given: milliseconds, or a duration such as `'2s'`. */
const period = z
  .union([z.number(), z.templateLiteral([z.number(), z.enum(['ms', 's', 'm', 'h', 'd'])])])
  .meta({ description: "The period as it was given: milliseconds, or a duration such as '2s'" });

/** `ConcurrencyLimit`: a kind's cap with what it holds now. */
export const concurrencyLimit = z
  .object({
    kind: z.string(),
    max: z.number().int(),
    perKey: z.boolean(),
    running: z.number().int().meta({ description: 'Steps of the kind running now' }),
    waiting: z.number().int().meta({
      description:
        'Ready steps of the kind the cap holds back now (per key under `perKey`), labelled AwaitingResource; a backlog beyond 100,000 ready steps reads as that many',
    }),
  })
  .meta({ id: 'ConcurrencyLimit' });

/** `RateLimit`. */
export const rateLimit = z
  .object({ kind: z.string(), limit: z.number().int(), period, perKey: z.boolean() })
  .meta({ id: 'RateLimit' });

/** `GET /api/limits`. */
export const limitList = z
  .object({ concurrency: z.array(concurrencyLimit), rate: z.array(rateLimit) })
  .meta({ id: 'LimitList' });

/** `GET|PUT /api/limits/concurrency/{kind}`. */
export const concurrencyLimitAnswer = z
  .object({ limit: concurrencyLimit })
  .meta({ id: 'ConcurrencyLimitAnswer' });

/** `GET|PUT /api/limits/rate/{kind}`. */
export const rateLimitAnswer = z.object({ limit: rateLimit }).meta({ id: 'RateLimitAnswer' });

/** `FairShare`: a kind under fair share. */
export const fairShare = z
  .object({
    kind: z.string(),
    weights: z.record(z.string(), z.number().int()).meta({
      description: 'Steps a key takes in its turn, by key; keys not named weigh 1',
    }),
    keys: z.number().int().meta({
      description:
        'Concurrency keys with claimable steps of the kind now (among its first 100,000 claimable steps; steps without a key not counted)',
    }),
  })
  .meta({ id: 'FairShare' });

/** `GET /api/fair-share`. */
export const fairShareList = z
  .object({ fairShares: z.array(fairShare) })
  .meta({ id: 'FairShareList' });

/** `GET|PUT /api/fair-share/{kind}`. */
export const fairShareAnswer = z.object({ fairShare }).meta({ id: 'FairShareAnswer' });

/** `DELETE /api/fair-share/{kind}`. */
export const fairShareRemoved = z
  .object({ kind: z.string(), removed: z.literal('fair-share') })
  .meta({ id: 'FairShareRemoved' });

/** `DELETE /api/limits/concurrency|rate/{kind}`. */
export const limitRemoved = z
  .object({ kind: z.string(), removed: z.enum(['concurrency', 'rate']) })
  .meta({ id: 'LimitRemoved' });

/** `FairShareQueueOverview`. */
const fairShareQueue = z
  .object({
    keys: z.number().int().meta({
      description: 'Concurrency keys with claimable steps (not counting steps without a key)',
    }),
    starvedKey: z.string().nullable().meta({
      description:
        'The key whose oldest ready step is the oldest; null when none is ready or it is the group without a key',
    }),
    starvedKeyless: z
      .boolean()
      .meta({ description: 'Whether the most-starved is the group of steps without a key' }),
    starvedAgeSeconds: z.number().meta({
      description: 'Age of the most-starved key’s oldest ready step; 0 when no step is ready',
    }),
  })
  .meta({ id: 'FairShareQueue' });

/** `KindQueueOverview`. */
export const kindQueue = z
  .object({
    kind: z.string(),
    available: z.number().int().meta({ description: 'Steps in `available`, due or not' }),
    ready: z.number().int().meta({ description: 'Available steps whose time has come' }),
    running: z.number().int(),
    waitingOnLimit: z
      .number()
      .int()
      .meta({ description: 'Ready steps held back by the kind’s concurrency cap' }),
    scheduledLater: z
      .number()
      .int()
      .meta({ description: 'Available steps whose time has not come (delay, backoff, snooze)' }),
    discardedLastHour: z.number().int(),
    oldestReadyAgeSeconds: z.number().meta({ description: '0 when no step is ready' }),
    fairShare: fairShareQueue.nullable().meta({
      description: 'How the keys of a kind under fair share wait; null when the kind is not',
    }),
  })
  .meta({ id: 'KindQueue' });

/** `GET /api/run-states`. */
export const runStateCounts = z
  .object({
    runs: z
      .array(z.object({ state: runState, runs: z.number().int() }))
      .readonly()
      .meta({ description: 'Every run state, zeros included' }),
  })
  .meta({ id: 'RunStateCounts' });

/** `GET /api/queues`. */
export const queueList = z
  .object({ queues: z.array(kindQueue).readonly() })
  .meta({ id: 'QueueList' });

/** `HeldStepOverview`. */
const heldStep = z
  .object({
    id: z.string(),
    runId: z.string(),
    node: z.string(),
    kind: z.string(),
    startedAt: z.date(),
  })
  .meta({ id: 'HeldStep' });

/** `WorkerOverview`. */
export const workerOverview = z
  .object({
    id: z.string(),
    host: z.string().nullable(),
    pid: z.number().int().nullable(),
    kinds: z.array(z.string()).readonly(),
    concurrency: z.number().int().nullable(),
    live: z.boolean().meta({ description: 'Refreshed its registration within the liveness' }),
    heldCount: z.number().int(),
    heldSteps: z.array(heldStep).readonly().meta({ description: 'The first 20, oldest first' }),
    lastHeartbeatAt: z.date(),
    startedAt: z.date(),
  })
  .meta({ id: 'Worker' });

/** `SchedulerLeaderOverview`. */
export const schedulerLeader = z
  .object({
    holder: z.string(),
    active: z.boolean(),
    lastPassAt: z.date(),
    expiresAt: z.date(),
    ledSince: z.date(),
  })
  .meta({ id: 'SchedulerLeader' });

/** `GET /api/workers`. */
export const workersAnswer = z
  .object({
    now: z.date().meta({ description: 'The database clock, against which to read the times' }),
    live: z.array(workerOverview).readonly(),
    stopped: z
      .array(workerOverview)
      .readonly()
      .meta({ description: 'Workers that stopped refreshing within the last hour (crashed)' }),
    leader: schedulerLeader.nullable(),
  })
  .meta({ id: 'Workers' });

/** One minute of `GET /api/stats`. */
export const statsMinute = z
  .object({
    minute: z.date(),
    completed: z.number().int(),
    failed: z.number().int().meta({ description: 'Failed attempts (retried or discarded)' }),
    waitP50Ms: z.number().nullable().meta({ description: 'Queue wait, null with no start' }),
    waitP95Ms: z.number().nullable(),
  })
  .meta({ id: 'StatsMinute' });

/** `GET /api/stats`. */
export const statsAnswer = z
  .object({
    window: z.string(),
    kind: z.string().nullable(),
    minutes: z
      .array(statsMinute)
      .readonly()
      .meta({ description: 'Every minute of the window, oldest first, zeros included' }),
  })
  .meta({ id: 'Stats' });
