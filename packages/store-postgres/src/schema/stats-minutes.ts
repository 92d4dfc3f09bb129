import { sql } from 'drizzle-orm';
import { bigint, check, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Throughput and queue wait per minute and handler kind, as workers flush them: every few seconds
 * (and at stop) a worker adds what it counted since its last flush to the row of the current
 * minute (database clock), in one upsert. The dashboard's charts read a window of these rows
 * instead of the steps' history. `wait_buckets` is a fixed log-scale histogram of the queue wait
 * (started minus became-claimable): bucket 0 counts waits under 1 ms, bucket `i` (1 to 62) those
 * in [2^((i-1)/2), 2^(i/2)) ms, bucket 63 the longer ones. Retention deletes old minutes.
 */
export const cycloneStatsMinutes = pgTable(
  'cyclone_stats_minutes',
  {
    minute: timestamp('minute', { withTimezone: true, mode: 'date' }).notNull(),
    kind: text('kind').notNull(),
    /** Successes recorded in the minute. */
    completed: bigint('completed', { mode: 'number' }).notNull().default(0),
    /** Failures recorded in the minute: attempts retried or discarded. */
    failed: bigint('failed', { mode: 'number' }).notNull().default(0),
    /** Queue waits of the steps started in the minute, by bucket. */
    waitBuckets: bigint('wait_buckets', { mode: 'number' }).array().notNull(),
  },
  (t) => [
    primaryKey({ name: 'cyclone_stats_minutes_pkey', columns: [t.minute, t.kind] }),
    check(
      'cyclone_stats_minutes_counts_check',
      sql`${t.completed} >= 0 AND ${t.failed} >= 0 AND cardinality(${t.waitBuckets}) = 64`,
    ),
  ],
);
