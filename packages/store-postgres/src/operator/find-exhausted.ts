import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';

/** Filters of the DLQ; a null filter matches everything. */
export interface FindExhaustedParams {
  discardedState: string;
  reason: string | null;
  workflow: string | null;
  /** Only steps that ended before this time. */
  before: Date | null;
  /** Keyset position: entries after (older than) this end time and id. */
  afterEndedAt: string | null;
  afterId: string | null;
  limit: number;
}

/** A discarded step with its run's workflow. */
export interface ExhaustedRow {
  id: string;
  run_id: string;
  workflow: string;
  node: string;
  kind: string | null;
  item_index: number | null;
  error_kind: string | null;
  error: string | null;
  attempts: number;
  max_attempts: number;
  ended_at: Date;
  /** `ended_at` as Postgres prints it, full precision, for the cursor. */
  ended_at_text: string;
}

/**
 * The DLQ: discarded steps newest end first, by reason (error kind) and workflow, one keyset page
 * at a time. The partial index `cyclone_steps_discarded_idx (error_kind, ended_at)` serves it.
 */
const statement = defineStatement<FindExhaustedParams, ExhaustedRow>(
  'find-exhausted',
  (t, p) => `
SELECT s.id, s.run_id, r.workflow, s.node, s.kind, s.item_index, s.error_kind, s.error,
       s.attempts, s.max_attempts, s.ended_at, s.ended_at::text AS ended_at_text
FROM ${t.steps} s JOIN ${t.runs} r ON r.id = s.run_id
WHERE s.state = ${p.discardedState}::text
  AND (${p.reason}::text IS NULL OR s.error_kind = ${p.reason}::text)
  AND (${p.workflow}::text IS NULL OR r.workflow = ${p.workflow}::text)
  AND (${p.before}::timestamptz IS NULL OR s.ended_at < ${p.before}::timestamptz)
  AND (${p.afterEndedAt}::timestamptz IS NULL
       OR (s.ended_at, s.id) < (${p.afterEndedAt}::timestamptz, ${p.afterId}::uuid))
ORDER BY s.ended_at DESC, s.id DESC
LIMIT ${p.limit}
`,
);

/** Reads one DLQ page (see the statement). */
export function findExhausted(db: SqlRunner, p: FindExhaustedParams): Promise<ExhaustedRow[]> {
  return db.rows(statement, p);
}
