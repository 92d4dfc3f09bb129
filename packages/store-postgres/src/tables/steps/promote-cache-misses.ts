import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { stepsReadyTail } from './steps-ready-tail.js';
import type { SingleFromChangeParams } from '../transitions/change-params.js';

/** Ready cached tasks whose key missed, each with the key its handler's output will be kept under. */
export interface PromoteCacheMissesParams extends SingleFromChangeParams {
  stepIds: string[];
  /** Each step's cache key (null: the input lacked the key's field, nothing will be kept). */
  cacheKeys: (string | null)[];
}

/**
 * Promotes ready cached tasks whose key the cache did not hold, `pending -> available` by
 * `promote` like any ready task, and keeps the key on the step: its handler's success fills the
 * cache under it. Runs under the run's lock.
 */
const statement = defineStatement<PromoteCacheMissesParams, { id: string }>(
  'promote-cache-misses',
  (t, p) => `
WITH misses AS (
  SELECT * FROM unnest((SELECT ${p.stepIds}::uuid[]), (SELECT ${p.cacheKeys}::text[])) AS m(id, cache_key)
), promoted AS (
  UPDATE ${t.stepsHot} s
  SET state = (SELECT ${p.toState}::text), scheduled_at = now(), cache_key = m.cache_key
  FROM misses m
  WHERE s.id = m.id AND s.state = ANY((SELECT ${p.fromStates}::text[])::text[])
  RETURNING s.id, s.run_id, s.node, s.kind
), ${stepsReadyTail(t, 'promoted', p)}
`,
);

/** Promotes ready cached tasks that missed (see the statement). */
export function promoteCacheMisses(
  db: SqlRunner,
  p: PromoteCacheMissesParams,
): Promise<{ id: string }[]> {
  return db.rows(statement, p);
}
