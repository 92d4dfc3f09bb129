import { sql } from 'drizzle-orm';
import { bigserial, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * The operator's history of a run: one row for every transition that means something to an
 * operator, written in the same transaction as the transition. Each row's `(from_state, to_state,
 * trigger)` is a row of core's transition table.
 */
export const cycloneEvents = pgTable(
  'cyclone_events',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    runId: uuid('run_id').notNull(),
    stepId: uuid('step_id'),
    node: text('node'),
    /** What happened, e.g. `step_completed`, `step_retry_scheduled`, `run_failed`, `wait_lapsed`. */
    type: text('type').notNull(),
    /** The state before the transition; null when the row was inserted (a submit). */
    fromState: text('from_state'),
    toState: text('to_state'),
    /**
     * The trigger of core's transition table that made the move (`claim`, `complete`, ...): a step
     * trigger on step events, a run trigger on run events. Null only on events written before the
     * column existed.
     */
    trigger: text('trigger'),
    errorKind: text('error_kind'),
    /** Small operator-facing facts (attempt, delay); never payloads. */
    detail: jsonb('detail'),
    /**
     * When the transition was written: the database's clock at the insert, not the start of its
     * transaction (`now()`), so events of overlapping transactions keep the order of their ids.
     */
    at: timestamp('at', { withTimezone: true, mode: 'date' })
      .notNull()
      .default(sql`clock_timestamp()`),
  },
  // Events are read by run, in order (`run_id = $1 ORDER BY id`), and by nothing else: the one
  // index is the primary key on both, so each event writes one B-tree entry, not two.
  (t) => [primaryKey({ name: 'cyclone_events_pkey', columns: [t.runId, t.id] })],
);
