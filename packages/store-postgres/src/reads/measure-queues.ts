import type { Executor } from '../db/executor.js';
import { defineStatement } from '../db/statement.js';

/** The state of a step waiting for a worker. */
export interface MeasureQueuesParams {
  availableState: string;
}

/** One kind's queue, as the statement returns it. */
export interface QueueRow {
  kind: string;
  depth: number;
  ready: number;
  oldest_ready_seconds: number;
}

/**
 * Available steps by handler kind: all of them, the claimable ones, and how long the oldest
 * claimable one has waited, by the database clock (the claim index `(kind, scheduled_at)`).
 */
const statement = defineStatement<MeasureQueuesParams, QueueRow>(
  'measure-queues',
  (t, p) => `
SELECT kind, count(*)::int AS depth,
       (count(*) FILTER (WHERE scheduled_at <= now()))::int AS ready,
       COALESCE(EXTRACT(EPOCH FROM now() - min(scheduled_at) FILTER (WHERE scheduled_at <= now())), 0)::float8
         AS oldest_ready_seconds
FROM ${t.steps} WHERE state = ${p.availableState}::text AND kind IS NOT NULL
GROUP BY kind ORDER BY kind
`,
);

/** The queue of every handler kind that has available steps. */
export function measureQueues(db: Executor, p: MeasureQueuesParams): Promise<QueueRow[]> {
  return db.rows(statement, p);
}
