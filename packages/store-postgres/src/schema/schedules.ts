import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { oneOf } from './check-values.js';

/** What a schedule does when a fire comes while the previous fire's run is still going. */
export const OVERLAP_POLICIES = ['skip', 'allow', 'cancel_previous'] as const;

/** Which of the ticks one downtime (no scheduler leading) missed are fired late. */
export const CATCH_UP_POLICIES = ['none', 'latest', 'all'] as const;

/**
 * Cron schedules. A schedule is enabled or disabled, nothing in between; `consecutive_failures`
 * counts scanner, enqueue and submit failures (not handler failures, which belong to the run).
 * `next_run_at` is the first tick not handled yet; the scanner advances it, guarded by its previous
 * value, in the transaction that records the tick's fire.
 */
export const cycloneSchedules = pgTable(
  'cyclone_schedules',
  {
    id: text('id').primaryKey(),
    cron: text('cron').notNull(),
    timezone: text('timezone').notNull().default('UTC'),
    /** Exactly one of workflow (a workflow name) or kind (a standalone job). */
    workflow: text('workflow'),
    kind: text('kind'),
    input: jsonb('input')
      .notNull()
      .default(sql`'null'::jsonb`),
    enabled: boolean('enabled').notNull().default(true),
    overlap: text('overlap').notNull().default('skip'),
    catchUp: text('catch_up').notNull().default('latest'),
    /** Most of one downtime's missed ticks caught up under catch-up `all`. */
    catchUpLimit: integer('catch_up_limit').notNull().default(100),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    lastError: text('last_error'),
    nextRunAt: timestamp('next_run_at', { withTimezone: true, mode: 'date' }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true, mode: 'date' }),
    /** The tick of the newest fire the scanner handled. */
    lastFireAt: timestamp('last_fire_at', { withTimezone: true, mode: 'date' }),
    lastRunId: uuid('last_run_id'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    check('cyclone_schedules_overlap_check', oneOf('overlap', OVERLAP_POLICIES)),
    check('cyclone_schedules_catch_up_check', oneOf('catch_up', CATCH_UP_POLICIES)),
    check('cyclone_schedules_catch_up_limit_check', sql`${t.catchUpLimit} >= 0`),
    check('cyclone_schedules_target_check', sql`(${t.workflow} IS NULL) <> (${t.kind} IS NULL)`),
    index('cyclone_schedules_due_idx')
      .on(t.nextRunAt)
      .where(sql`${t.enabled}`),
  ],
);
