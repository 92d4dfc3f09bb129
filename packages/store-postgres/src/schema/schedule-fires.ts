import { sql } from 'drizzle-orm';
import { boolean, check, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { oneOf } from './check-values.js';

/** What became of a schedule's tick. */
export const FIRE_OUTCOMES = ['submitted', 'skipped', 'failed'] as const;

/**
 * One row per schedule tick that was handled: the primary key (schedule, tick) is what makes a
 * second scheduler's attempt at the same tick a no-op, whatever the timing. The row and the run it
 * started are written in one transaction. `run_id` is not a foreign key: retention deletes old runs
 * and the fire history outlives them.
 */
export const cycloneScheduleFires = pgTable(
  'cyclone_schedule_fires',
  {
    scheduleId: text('schedule_id').notNull(),
    fireAt: timestamp('fire_at', { withTimezone: true, mode: 'date' }).notNull(),
    outcome: text('outcome').notNull(),
    runId: uuid('run_id'),
    /** Handled more than `LateFireMs` after its tick (labelled `Late`). */
    late: boolean('late').notNull().default(false),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.scheduleId, t.fireAt] }),
    check('cyclone_schedule_fires_outcome_check', oneOf('outcome', FIRE_OUTCOMES)),
    check(
      'cyclone_schedule_fires_run_check',
      sql`(${t.outcome} = 'submitted') = (${t.runId} IS NOT NULL)`,
    ),
  ],
);
