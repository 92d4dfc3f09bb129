import { WaitBucketCount } from '@cyclone/core';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** What a worker counted since its last flush, per kind, in parallel arrays. */
export interface AddStatsMinutesParams {
  kinds: readonly string[];
  completed: readonly number[];
  failed: readonly number[];
  /** Each kind's {@link WaitBucketCount} wait buckets, one after the other. */
  waitBuckets: readonly number[];
}

/**
 * Adds the counts to the rows of the current minute (the database clock), one row a kind, creating
 * them at the minute's first flush. Concurrent flushes of several workers add up: the upsert
 * updates under the row lock and sums the histograms bucket by bucket.
 */
const statement = defineStatement<AddStatsMinutesParams>(
  'add-stats-minutes',
  (t, p) => `
INSERT INTO ${t.statsMinutes} AS m (minute, kind, completed, failed, wait_buckets)
SELECT date_trunc('minute', now()), f.kind, f.completed, f.failed,
       (${p.waitBuckets}::bigint[])[(f.n - 1) * ${WaitBucketCount} + 1 : f.n * ${WaitBucketCount}]
FROM unnest(${p.kinds}::text[], ${p.completed}::bigint[], ${p.failed}::bigint[])
  WITH ORDINALITY AS f(kind, completed, failed, n)
ON CONFLICT (minute, kind) DO UPDATE
SET completed = m.completed + EXCLUDED.completed,
    failed = m.failed + EXCLUDED.failed,
    wait_buckets = ARRAY(
      SELECT a + b FROM unnest(m.wait_buckets, EXCLUDED.wait_buckets) WITH ORDINALITY AS u(a, b, i)
      ORDER BY i)
`,
);

/** Adds a worker's counts to the current minute's rows (see the statement). */
export async function addStatsMinutes(db: SqlRunner, p: AddStatsMinutesParams): Promise<void> {
  await db.count(statement, p);
}
