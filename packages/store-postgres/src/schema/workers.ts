import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Live workers and the kinds they handle, refreshed at every poll. The scheduler reads it to
 * fail steps whose kind no live worker handles, instead of leaving them available forever.
 */
export const cycloneWorkers = pgTable('cyclone_workers', {
  id: text('id').primaryKey(),
  kinds: text('kinds').array().notNull(),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow(),
});
