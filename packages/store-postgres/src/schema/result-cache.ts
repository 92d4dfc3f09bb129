import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

const tz = { withTimezone: true, mode: 'date' } as const;

/**
 * The result cache: one output per (kind, key), produced by a handler of a task node with a
 * `cache` option and valid until `expires_at` (its step's completion plus the node's ttl). A hit
 * copies the output into the hitting step and leaves the entry as it is; a later success of the
 * same key replaces it. Retention deletes expired entries.
 */
export const cycloneCache = pgTable(
  'cyclone_cache',
  {
    kind: text('kind').notNull(),
    key: text('key').notNull(),
    output: jsonb('output').notNull(),
    /** The step whose handler produced the output. */
    stepId: uuid('step_id').notNull(),
    createdAt: timestamp('created_at', tz).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', tz).notNull(),
  },
  (t) => [
    primaryKey({ name: 'cyclone_cache_pkey', columns: [t.kind, t.key] }),
    index('cyclone_cache_expires_idx').on(t.expiresAt),
  ],
);
