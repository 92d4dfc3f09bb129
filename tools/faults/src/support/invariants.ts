/**
 * The invariants the scenarios assert, read straight from the tables (never through the client),
 * so a scenario checks what was written rather than what the read path makes of it.
 */
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

/** Counts over the steps of the runs a scenario created. */
export interface StepCounts {
  /** Steps in the runs. */
  readonly steps: number;
  /** Steps in each state. */
  readonly byState: Record<string, number>;
  /**
   * Steps with more than one completion event (an event into `completed`: `step_completed` of a
   * handler, or a wait node's firing or signal).
   */
  readonly doubleCompleted: number;
  /** Completed steps with no completion event. */
  readonly completedWithoutEvent: number;
  /** Executions beyond the first of each step (from `fault_effects`): at-least-once at work. */
  readonly duplicateExecutions: number;
  /** Reclaims recorded on the steps (a lease that expired and went back to available). */
  readonly reclaims: number;
}

/** Counts the steps of `runIds` (all runs when omitted) by state, completion events and effects. */
export async function stepCounts(db: Queryable, runIds?: readonly string[]): Promise<StepCounts> {
  const filter = runIds ? 'WHERE s.run_id = ANY($1::uuid[])' : '';
  const values = runIds ? [runIds] : [];
  const { rows } = await db.query<{
    state: string;
    n: number;
    double: number;
    missing: number;
    duplicates: number;
    reclaims: number;
  }>(
    `SELECT s.state, count(*)::int AS n,
            count(*) FILTER (WHERE coalesce(c.n, 0) > 1)::int AS double,
            count(*) FILTER (WHERE s.state = 'completed' AND coalesce(c.n, 0) = 0)::int AS missing,
            coalesce(sum(greatest(coalesce(e.n, 0) - 1, 0)), 0)::int AS duplicates,
            coalesce(sum(s.reclaims), 0)::int AS reclaims
     FROM cyclone_steps s
     LEFT JOIN (SELECT step_id, count(*)::int AS n FROM cyclone_history
                WHERE to_state = 'completed' AND step_id IS NOT NULL GROUP BY step_id) c
            ON c.step_id = s.id
     LEFT JOIN (SELECT step_id, count(*)::int AS n FROM fault_effects GROUP BY step_id) e
            ON e.step_id = s.id
     ${filter}
     GROUP BY s.state`,
    values,
  );
  const byState: Record<string, number> = {};
  let steps = 0;
  let doubleCompleted = 0;
  let completedWithoutEvent = 0;
  let duplicateExecutions = 0;
  let reclaims = 0;
  for (const row of rows) {
    byState[row.state] = row.n;
    steps += row.n;
    doubleCompleted += row.double;
    completedWithoutEvent += row.missing;
    duplicateExecutions += row.duplicates;
    reclaims += row.reclaims;
  }
  return { steps, byState, doubleCompleted, completedWithoutEvent, duplicateExecutions, reclaims };
}

/** Steps still `running` (of `runIds`, or all). */
export async function runningSteps(db: Queryable, runIds?: readonly string[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM cyclone_steps
     WHERE state = 'running' ${runIds ? 'AND run_id = ANY($1::uuid[])' : ''}`,
    runIds ? [runIds] : [],
  );
  return rows[0]!.n;
}

/** Runs in each state (of `runIds`, or all). */
export async function runCounts(
  db: Queryable,
  runIds?: readonly string[],
): Promise<Record<string, number>> {
  const { rows } = await db.query<{ state: string; n: number }>(
    `SELECT state, count(*)::int AS n FROM cyclone_runs
     ${runIds ? 'WHERE id = ANY($1::uuid[])' : ''} GROUP BY state`,
    runIds ? [runIds] : [],
  );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

/** Whether every one of `runIds` (or every run) is terminal. */
export async function allRunsTerminal(db: Queryable, runIds?: readonly string[]): Promise<boolean> {
  const counts = await runCounts(db, runIds);
  return (counts.running ?? 0) === 0 && (counts.paused ?? 0) === 0;
}

/**
 * How the rows written inside `ctx.transaction` (`fault_txn_effects`) agree with the completions of
 * the steps of `runIds`: exactly-once effects means one row for each completed step and none for
 * any other.
 */
export interface TransactionalEffects {
  /** Completed steps with exactly one row. */
  readonly completedWithRow: number;
  /** Completed steps without a row. */
  readonly completedWithoutRow: number;
  /** Steps not completed that have a row. */
  readonly rowWithoutCompletion: number;
  /** Steps with more than one row. */
  readonly multipleRows: number;
}

/** Counts the transactional effects of the steps of `runIds` (see {@link TransactionalEffects}). */
export async function transactionalEffects(
  db: Queryable,
  runIds: readonly string[],
): Promise<TransactionalEffects> {
  const { rows } = await db.query<TransactionalEffects>(
    `SELECT count(*) FILTER (WHERE s.state = 'completed' AND coalesce(e.n, 0) = 1)::int
              AS "completedWithRow",
            count(*) FILTER (WHERE s.state = 'completed' AND coalesce(e.n, 0) = 0)::int
              AS "completedWithoutRow",
            count(*) FILTER (WHERE s.state <> 'completed' AND coalesce(e.n, 0) > 0)::int
              AS "rowWithoutCompletion",
            count(*) FILTER (WHERE coalesce(e.n, 0) > 1)::int AS "multipleRows"
     FROM cyclone_steps s
     LEFT JOIN (SELECT step_id, count(*)::int AS n FROM fault_txn_effects GROUP BY step_id) e
            ON e.step_id = s.id
     WHERE s.run_id = ANY($1::uuid[])`,
    [runIds],
  );
  return rows[0]!;
}
