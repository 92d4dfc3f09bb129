import type { SqlRunner } from '../db/sql-runner.js';
import { defineStatement } from '../db/statement.js';

/** Which workers {@link readWorkers} lists. */
export interface ReadWorkersParams {
  /** A worker seen within this many milliseconds is live. */
  livenessMs: number;
  /** Workers last seen longer ago than this are not listed at all. */
  recentMs: number;
  /** Most held steps listed per worker (all are counted). */
  heldLimit: number;
}

/** A registered worker and the steps it holds. */
export interface WorkerRow {
  id: string;
  kinds: string[];
  host: string | null;
  pid: number | null;
  concurrency: number | null;
  started_at: Date;
  last_seen_at: Date;
  live: boolean;
  held: number;
  held_steps: { id: string; runId: string; node: string; kind: string; startedAt: string }[];
}

/**
 * Workers seen within `recentMs`, live ones (seen within `livenessMs`) first, with the running
 * steps each holds: read by the index of running steps (as many rows as the workers' slots).
 */
const statement = defineStatement<ReadWorkersParams, WorkerRow>(
  'read-workers',
  (t, p) => `
WITH held AS (
  SELECT s.claimed_by, s.id, s.run_id, s.node, s.kind, s.started_at,
         row_number() OVER (PARTITION BY s.claimed_by ORDER BY s.started_at, s.id) AS n
  FROM ${t.stepsHot} s WHERE s.state = 'running' AND s.claimed_by IS NOT NULL
)
SELECT w.id, w.kinds, w.host, w.pid, w.concurrency, w.started_at, w.last_seen_at,
  w.last_seen_at > now() - ${p.livenessMs}::bigint * interval '1 millisecond' AS live,
  (SELECT count(*) FROM held h WHERE h.claimed_by = w.id)::int AS held,
  coalesce((SELECT json_agg(json_build_object('id', h.id, 'runId', h.run_id, 'node', h.node,
                                              'kind', h.kind, 'startedAt', h.started_at)
                            ORDER BY h.n)
            FROM held h WHERE h.claimed_by = w.id AND h.n <= ${p.heldLimit}), '[]'::json)
    AS held_steps
FROM ${t.workers} w
WHERE w.last_seen_at > now() - ${p.recentMs}::bigint * interval '1 millisecond'
ORDER BY live DESC, w.id
`,
);

/** Reads the recently seen workers (see the statement). */
export function readWorkers(db: SqlRunner, p: ReadWorkersParams): Promise<WorkerRow[]> {
  return db.rows(statement, p);
}
