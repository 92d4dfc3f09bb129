import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';

/**
 * The idempotency keys of runs, one row per key that a run was submitted with: the key is taken
 * while the row exists, which is as long as its run exists (retention deletes both). Submit
 * inserts the key first (`ON CONFLICT (key) DO NOTHING`) and the run only for a key it inserted,
 * so this table, not an index on `cyclone_runs`, makes a key unique: a unique index on runs could
 * not hold across partitions of runs by period (decision 349). The run keeps its key in
 * `cyclone_runs.idempotency_key` too, for the reads that return it. No foreign key: a run's period
 * leaves by dropping its partition, and its keys go by one delete of that range of `run_id`.
 */
export const cycloneRunKeys = pgTable(
  'cyclone_run_keys',
  {
    key: text('key').primaryKey(),
    runId: uuid('run_id').notNull(),
  },
  (t) => [index('cyclone_run_keys_run_idx').on(t.runId)],
);
