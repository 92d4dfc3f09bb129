import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { ERROR_KINDS, RUN_STATES } from '@cyclone/core';
import { nullOrOneOf, oneOf } from './check-values.js';

const tz = { withTimezone: true, mode: 'date' } as const;

/**
 * One row per run: a submitted workflow or a standalone job (a run of one step). A run starts
 * `running`; there is no pending run state.
 */
export const cycloneRuns = pgTable(
  'cyclone_runs',
  {
    id: uuid('id').primaryKey(),
    /** Workflow name, or the handler kind of a standalone job. */
    workflow: text('workflow').notNull(),
    /** Hash of the definition in `cyclone_workflows`; null for a standalone job. */
    definitionHash: text('definition_hash'),
    state: text('state').notNull().default('running'),
    input: jsonb('input')
      .notNull()
      .default(sql`'null'::jsonb`),
    /** Error kind and message of the discard that failed the run (or `deadline`). */
    errorKind: text('error_kind'),
    error: text('error'),
    /** The node whose uncontained discard failed the run. */
    failedNode: text('failed_node'),
    /** For a child run: the parent run and the parent's child-node step. */
    parentRunId: uuid('parent_run_id'),
    parentStepId: uuid('parent_step_id'),
    /**
     * The key the run was submitted with, as the reads return it; `cyclone_run_keys` is what makes
     * it unique (decision 411).
     */
    idempotencyKey: text('idempotency_key'),
    /**
     * The W3C trace context (`{ traceparent, tracestate }`) of the span active at submit, so the
     * worker's step spans join the submitter's trace; null when no span was active.
     */
    traceContext: jsonb('trace_context').$type<Record<string, string>>(),
    /** WithRunDeadline: when the deadline scanner stops the run. */
    deadlineAt: timestamp('deadline_at', tz),
    /** WithMaxReclaims: reclaims a step may have before the next expiry discards it. */
    maxReclaims: integer('max_reclaims'),
    /** Steps of the run that are not terminal; the run can end only when it reaches 0. */
    openSteps: integer('open_steps').notNull(),
    /** Counters adopted from the sibling engine: failed attempts and lease reclaims. */
    failureCount: integer('failure_count').notNull().default(0),
    reclaimCount: integer('reclaim_count').notNull().default(0),
    /** When the current pause began; waits and timers move forward by the pause's length. */
    pausedAt: timestamp('paused_at', tz),
    createdAt: timestamp('created_at', tz).notNull().defaultNow(),
    startedAt: timestamp('started_at', tz),
    endedAt: timestamp('ended_at', tz),
  },
  (t) => [
    check('cyclone_runs_state_check', oneOf('state', RUN_STATES)),
    check('cyclone_runs_error_kind_check', nullOrOneOf('error_kind', ERROR_KINDS)),
    check('cyclone_runs_open_steps_check', sql`${t.openSteps} >= 0`),
    // No index on this table involves `state` (or any other column a transition writes), so
    // updating a run is a HOT update: no index is touched. Listing by state scans by time.
    index('cyclone_runs_created_idx').on(t.createdAt),
    index('cyclone_runs_workflow_created_idx').on(t.workflow, t.createdAt),
    index('cyclone_runs_parent_idx')
      .on(t.parentRunId)
      .where(sql`${t.parentRunId} IS NOT NULL`),
    index('cyclone_runs_deadline_idx')
      .on(t.deadlineAt)
      .where(sql`${t.deadlineAt} IS NOT NULL`),
  ],
);
