import type { HeldStep } from '../contract/worker-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { heartbeatSteps } from '../tables/steps/heartbeat-steps.js';

/** Extends the leases of held steps; returns the ids still held (the others were lost). */
export async function heartbeat(
  db: SqlRunner,
  held: readonly HeldStep[],
  leaseMs: number,
): Promise<Set<string>> {
  if (held.length === 0) return new Set();
  const rows = await heartbeatSteps(db, {
    stepIds: held.map((h) => h.stepId),
    claimTokens: held.map((h) => h.claimToken),
    leaseMs,
  });
  return new Set(rows.map((r) => r.id));
}
