import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Live workers and the kinds they handle, refreshed at every poll. The scheduler reads it to
 * fail steps whose kind no live worker handles, instead of leaving them available forever. The
 * host, process id and concurrency are what an operator's overview shows (null for a worker of an
 * older version).
 */
export const cycloneWorkers = pgTable('cyclone_workers', {
  id: text('id').primaryKey(),
  kinds: text('kinds').array().notNull(),
  startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow(),
  host: text('host'),
  pid: integer('pid'),
  concurrency: integer('concurrency'),
});
