import { pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The stretches of time a leader lease was held by no one: from the last renewal of a lease that
 * lapsed or was given up, until it was taken again, written in the statement that took it. For the
 * `scheduler` lease these are the downtimes whose missed ticks follow a schedule's catch-up policy
 * (decision 27). Rows no enabled schedule can need any more are deleted by the schedules scanner.
 */
export const cycloneLeaderGaps = pgTable(
  'cyclone_leader_gaps',
  {
    name: text('name').notNull(),
    /** The last renewal before the lease lapsed; null when no one had held the lease before. */
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    /** When the lease was taken again. */
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.name, t.endedAt] })],
);
