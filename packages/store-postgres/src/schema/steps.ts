import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { ERROR_KINDS, NODE_TYPES, OnDepFailure, STEP_STATES } from '@cyclone/core';
import { nullOrOneOf, oneOf } from './check-values.js';

const tz = { withTimezone: true, mode: 'date' } as const;

/**
 * One row per step: a node of a run, or an item task of a fan-out node. Claiming, leases,
 * dependencies, waits and pause bookkeeping all live on this row, so every transition is one
 * fenced UPDATE of it.
 */
export const cycloneSteps = pgTable(
  'cyclone_steps',
  {
    id: uuid('id').primaryKey(),
    runId: uuid('run_id').notNull(),
    /** Node name; an item task carries its fan-out node's name and an `item_index`. */
    node: text('node').notNull(),
    nodeType: text('node_type').notNull(),
    /** Handler kind for task nodes, item tasks and fan-out nodes (its items' kind). */
    kind: text('kind'),
    state: text('state').notNull(),
    /** Names of the upstream nodes; the engine promotes the step when `deps_remaining` reaches 0. */
    dependsOn: text('depends_on')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    depsRemaining: integer('deps_remaining').notNull().default(0),
    onDepFailure: text('on_dep_failure').notNull().default(OnDepFailure.FailRun),
    /** Item task: its fan-out node's step, its position, and its element of the list. */
    parentStepId: uuid('parent_step_id'),
    itemIndex: integer('item_index'),
    item: jsonb('item'),
    /** Fan-out node: how many item tasks may be in progress at once (null: no limit). */
    maxParallel: integer('max_parallel'),
    /** Child node: the child run it started. */
    childRunId: uuid('child_run_id'),
    /** Attempts that have ended; the attempt in flight is `attempts + 1`. */
    attempts: integer('attempts').notNull().default(0),
    maxAttempts: integer('max_attempts').notNull(),
    reclaims: integer('reclaims').notNull().default(0),
    timeoutMs: integer('timeout_ms'),
    /** Retry backoff policy (`BackoffPolicy` of core); null means the default. */
    backoff: jsonb('backoff'),
    /** When the step becomes claimable (available), or when a timer fires (waiting_timer). */
    scheduledAt: timestamp('scheduled_at', tz).notNull().defaultNow(),
    /** The fence of the current claim: every write of a worker names it. */
    claimToken: uuid('claim_token'),
    claimedBy: text('claimed_by'),
    leaseExpiresAt: timestamp('lease_expires_at', tz),
    output: jsonb('output'),
    error: text('error'),
    errorKind: text('error_kind'),
    panicStack: text('panic_stack'),
    /** A wait node whose max wait lapsed. */
    timedOut: boolean('timed_out').notNull().default(false),
    /** Wait nodes: the signal names accepted, the quorum, the payloads gathered so far. */
    waitSignals: text('wait_signals').array(),
    waitN: integer('wait_n'),
    waitPayloads: jsonb('wait_payloads'),
    /** Wait and child nodes: how long they may wait in all, and when that lapses. */
    maxWaitMs: bigint('max_wait_ms', { mode: 'number' }),
    waitDeadlineAt: timestamp('wait_deadline_at', tz),
    /** Wait and timer nodes: fire delay (timer) from promotion. */
    waitForMs: bigint('wait_for_ms', { mode: 'number' }),
    createdAt: timestamp('created_at', tz).notNull().defaultNow(),
    startedAt: timestamp('started_at', tz),
    endedAt: timestamp('ended_at', tz),
    /**
     * The id (from `cyclone_events`' sequence) of the `step_started` event of the step's latest
     * claim, taken by the claim. While the claim runs or ends in success the row tells that event
     * (`cyclone_history`); a claim that ends otherwise stores it under this id first.
     */
    startedEventId: bigint('started_event_id', { mode: 'number' }),
    /** The id of the `step_completed` event of a handler's success, which the row tells. */
    completedEventId: bigint('completed_event_id', { mode: 'number' }),
    /**
     * The id of the `step_ready` event of the completion that promoted the task (its last
     * dependency completed), which the row tells, and that event's time. A reopen, which puts the
     * step back to `pending`, stores the event under this id first.
     */
    readyEventId: bigint('ready_event_id', { mode: 'number' }),
    readyAt: timestamp('ready_at', tz),
    /**
     * The key a per-key concurrency cap or rate limit of the kind counts the step by (from the
     * node's `concurrencyKey` path into the run input, or the submit's); null for none.
     */
    concurrencyKey: text('concurrency_key'),
    /** Claimed before the available steps of the kind with a lower priority. */
    priority: bigint('priority', { mode: 'number' }).notNull().default(0),
    /**
     * A task node with a result cache: how long its handler's output serves later steps of the
     * kind (null: not cached, the usual case).
     */
    cacheTtlMs: bigint('cache_ttl_ms', { mode: 'number' }),
    /** The key the step looked its kind's cache up with, and keeps its handler's output under. */
    cacheKey: text('cache_key'),
    /** Completed with an output from the cache (`cache_hit`), without running. */
    cached: boolean('cached').notNull().default(false),
  },
  (t) => [
    check('cyclone_steps_state_check', oneOf('state', STEP_STATES)),
    check('cyclone_steps_error_kind_check', nullOrOneOf('error_kind', ERROR_KINDS)),
    check('cyclone_steps_node_type_check', oneOf('node_type', NODE_TYPES)),
    check(
      'cyclone_steps_on_dep_failure_check',
      oneOf('on_dep_failure', Object.values(OnDepFailure)),
    ),
    check('cyclone_steps_attempts_check', sql`${t.attempts} >= 0 AND ${t.maxAttempts} >= 1`),
    check('cyclone_steps_deps_remaining_check', sql`${t.depsRemaining} >= 0`),
    // Claiming reads only available rows, so the partial index stays small however many finished
    // rows pile up. In claim order: by kind, higher priority first, then the oldest (decision
    // 252). A claim walks it in three ranges, above, at and below the default priority (0); the
    // default's range ends at now(), so its steps scheduled later are never walked.
    index('cyclone_steps_claim_idx')
      .on(t.kind, t.priority.desc(), t.scheduledAt)
      .where(sql`${t.state} = 'available'`),
    // The claim of a kind under fair share (`claim-fair-steps`): within a priority, by concurrency
    // key, each key's steps oldest first. It finds the next key after another with one probe, so a
    // claim reads the keys it serves, not every claimable step; steps without a key sort last.
    index('cyclone_steps_fair_idx')
      .on(t.kind, t.priority.desc(), t.concurrencyKey, t.scheduledAt)
      .where(sql`${t.state} = 'available'`),
    // A run's steps, and with `item_index IS NULL` its nodes without the items of its fan-outs
    // (settlement reads those at every completion): one index serves both, so a step's insert and
    // each of its updates write one entry here, not two. A standalone job's step shares its run's
    // id and stays out (decision 302): the primary key finds it, and its enqueue, claim and
    // completion write no entry here. Statements read a run's steps through `db/steps-of-run.ts`.
    index('cyclone_steps_run_idx')
      .on(t.runId, t.itemIndex)
      .where(sql`${t.id} <> ${t.runId}`),
    // One item task per (fan-out node, position): an expansion that runs twice (a crash, a second
    // process) inserts each item once.
    uniqueIndex('cyclone_steps_parent_idx')
      .on(t.parentStepId, t.itemIndex)
      .where(sql`${t.parentStepId} IS NOT NULL`),
    // A fan-out's progress (items in progress, the next pending ones, a discarded one) is read at
    // every item's settlement: by state, it reads only those items, not all of the node's.
    index('cyclone_steps_parent_state_idx')
      .on(t.parentStepId, t.state, t.itemIndex)
      .where(sql`${t.parentStepId} IS NOT NULL`),
    // Running steps by kind and concurrency key: what a concurrency cap counts, and what the
    // recovery sweep walks (they are as many as the workers' slots). The lease's expiry is not in
    // it, so a heartbeat that extends a lease is a HOT update.
    index('cyclone_steps_running_idx')
      .on(t.kind, t.concurrencyKey)
      .where(sql`${t.state} = 'running'`),
    index('cyclone_steps_timer_idx')
      .on(t.scheduledAt)
      .where(sql`${t.state} = 'waiting_timer'`),
    index('cyclone_steps_wait_deadline_idx')
      .on(t.waitDeadlineAt)
      .where(
        sql`${t.state} IN ('waiting_signal', 'waiting_child') AND ${t.waitDeadlineAt} IS NOT NULL`,
      ),
    index('cyclone_steps_discarded_idx')
      .on(t.errorKind, t.endedAt)
      .where(sql`${t.state} = 'discarded'`),
  ],
);
