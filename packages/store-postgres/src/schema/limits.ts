import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

const tz = { withTimezone: true, mode: 'date' } as const;

/**
 * The flow limits of handler kinds, one row per limited kind: a concurrency cap (at most
 * `concurrency_max` steps running, per concurrency key with `concurrency_per_key`) and a rate limit
 * (at most `rate_limit` starts within any `rate_period_ms`, per key with `rate_per_key`). The claim
 * statement of a limited kind locks its row (`FOR UPDATE SKIP LOCKED`), so claims of one kind
 * take turns without waiting for each other, and counts under that lock.
 */
export const cycloneLimits = pgTable(
  'cyclone_limits',
  {
    kind: text('kind').primaryKey(),
    concurrencyMax: integer('concurrency_max'),
    concurrencyPerKey: boolean('concurrency_per_key').notNull().default(false),
    rateLimit: integer('rate_limit'),
    ratePeriodMs: bigint('rate_period_ms', { mode: 'number' }),
    /** The period as it was given (`'2s'`, `'1m'`, or milliseconds), listed as given. */
    ratePeriod: text('rate_period'),
    ratePerKey: boolean('rate_per_key').notNull().default(false),
    updatedAt: timestamp('updated_at', tz).notNull().defaultNow(),
  },
  (t) => [
    check(
      'cyclone_limits_some_check',
      sql`${t.concurrencyMax} IS NOT NULL OR ${t.rateLimit} IS NOT NULL`,
    ),
    check(
      'cyclone_limits_concurrency_check',
      sql`${t.concurrencyMax} IS NULL OR ${t.concurrencyMax} >= 1`,
    ),
    check(
      'cyclone_limits_rate_check',
      sql`(${t.rateLimit} IS NULL AND ${t.ratePeriodMs} IS NULL) OR (${t.rateLimit} >= 1 AND ${t.ratePeriodMs} >= 1)`,
    ),
  ],
);

/**
 * The starts of steps of rate-limited kinds, one row per claim, kept for the kind's period: what a
 * sliding-window rate limit counts. `key` is the step's concurrency key under a per-key limit,
 * null otherwise. The claim that counts a kind's starts also deletes those older than its period.
 */
export const cycloneRateStarts = pgTable(
  'cyclone_rate_starts',
  {
    kind: text('kind').notNull(),
    key: text('key'),
    at: timestamp('at', tz).notNull(),
  },
  (t) => [index('cyclone_rate_starts_idx').on(t.kind, t.key, t.at)],
);
