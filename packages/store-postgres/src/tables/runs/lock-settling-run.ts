import type { SqlRunner } from '../../db/sql-runner.js';
import type { RunRecord } from '../../schema/rows.js';
import { defineStatement } from '../../db/statement.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run a settlement locks. */
export interface LockSettlingRunParams {
  runId: string;
  /** The node type of a task, for {@link LockedSettlingRunRow.has_cached_tasks}. */
  taskType: string;
}

/** The locked run, with what kinds of node it has. */
export type LockedSettlingRunRow = Pick<RunRecord, 'id' | 'state'> & {
  /** The types of the run's nodes (its item tasks left out), each once. */
  node_types: string[];
  /** Whether a task node of the run has a result cache. */
  has_cached_tasks: boolean;
};

/**
 * Locks a run for its settlement, as `lock-run` does, and says what kinds of node it has: a run's
 * nodes are all inserted at its submission, so a settlement need not look for wait, fan-out,
 * child or cached task nodes in a run without any (each look is a statement, and a fan-out's run
 * is settled after every batch of its items' completions). Reads the nodes by the run index.
 */
const statement = defineStatement<LockSettlingRunParams, LockedSettlingRunRow>(
  'lock-settling-run',
  (t, p) => `
SELECT r.id, r.state, n.node_types, n.has_cached_tasks
FROM ${t.runsHot} r
CROSS JOIN LATERAL (
  SELECT coalesce(array_agg(DISTINCT s.node_type), '{}') AS node_types,
         coalesce(bool_or(s.node_type = (SELECT ${p.taskType}::text) AND s.cache_ttl_ms IS NOT NULL), false)
           AS has_cached_tasks
  FROM ${t.stepsHot} s
  WHERE ${stepsOfRun('s', 'r.id')} AND s.item_index IS NULL
) n
WHERE r.id = (SELECT ${p.runId}::uuid)
FOR UPDATE OF r`,
);

/** Locks a run for its settlement (see the statement); undefined for an unknown run. */
export function lockSettlingRun(
  db: SqlRunner,
  p: LockSettlingRunParams,
): Promise<LockedSettlingRunRow | undefined> {
  return db.one(statement, p);
}
