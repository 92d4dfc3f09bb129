import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { TerminalStepStates } from '../transitions/terminal-states.js';
import { stepsOfRun } from '../../db/steps-of-run.js';

/** The run whose open steps to recount. */
export interface RecountOpenStepsParams {
  runId: string;
}

/**
 * Recounts a run's `open_steps` from its steps, after an operator action reopened some of them in
 * a run that does not change state (a retry of a contained discard in a running run). Runs under
 * the run's lock.
 */
const statement = defineStatement<
  RecountOpenStepsParams & { terminalStepStates: readonly string[] },
  { open_steps: number }
>(
  'recount-open-steps',
  (t, p) => `
UPDATE ${t.runsHot} r
SET open_steps = (SELECT count(*) FROM ${t.stepsHot} s
                  WHERE ${stepsOfRun('s', 'r.id')} AND s.state <> ALL((SELECT ${p.terminalStepStates}::text[])::text[]))
WHERE r.id = (SELECT ${p.runId}::uuid)
RETURNING r.open_steps
`,
);

/** Recounts a run's open steps (see the statement). */
export function recountOpenSteps(db: SqlRunner, p: RecountOpenStepsParams): Promise<number> {
  return db.count(statement, { ...p, terminalStepStates: TerminalStepStates });
}
