import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';

/** A half-open range of step ids, `[from, to)`: a period's. */
export interface StepIdRange {
  from: string;
  to: string;
}

/**
 * Whether a step of the range is available or running: what an operator's retry of one of the
 * period's runs makes of its steps. Each state has a partial index (`cyclone_steps_claim_idx`,
 * `cyclone_steps_running_idx`), empty in a finished period, so the look costs their root pages,
 * not a walk of the period: it runs under the steps' exclusive lock, before their partition is
 * dropped.
 */
const statement = defineStatement<StepIdRange, { found: boolean }>(
  'any-moving-step-in-id-range',
  (t, p) => `
SELECT EXISTS (
  SELECT 1 FROM ${t.steps}
  WHERE state = 'available' AND id >= ${p.from}::uuid AND id < ${p.to}::uuid
) OR EXISTS (
  SELECT 1 FROM ${t.steps}
  WHERE state = 'running' AND id >= ${p.from}::uuid AND id < ${p.to}::uuid
) AS found
`,
);

/** Whether a step of the range is available or running (see the statement). */
export async function anyMovingStepInIdRange(db: SqlRunner, range: StepIdRange): Promise<boolean> {
  return (await db.one(statement, range))?.found ?? false;
}
