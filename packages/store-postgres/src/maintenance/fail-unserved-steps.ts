import { ErrorKind, StepState, StepTrigger, stepChange } from '@cyclone/core';
import type { UnservedStepsSweep } from '../contract/maintenance-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { claimChangeParams } from '../tables/steps/claim-parts.js';
import { discardParams } from '../settlement/discard-and-settle.js';
import { discardStep } from '../tables/steps/discard-step.js';
import { lockRunOfStep } from '../tables/runs/lock-run-of-step.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { claimStep } from '../tables/steps/claim-step.js';
import { findUnservedSteps } from '../tables/steps/find-unserved-steps.js';

const discardPermanent = stepChange(StepTrigger.PermanentError, StepState.Exhausted);

/**
 * Fails steps that no live worker can run: available for longer than `graceMs` while workers
 * are live and none of them handles the step's kind. Each is claimed on behalf of `claimant`
 * and discarded as permanent with an error that names the kind, then its run is settled, all
 * in one transaction, so only legal moves are made. `value` is how many steps it failed.
 */
export async function failUnservedSteps(
  db: SqlRunner,
  p: UnservedStepsSweep,
): Promise<WithFollowUps<number>> {
  const steps = await findUnservedSteps(db, {
    livenessMs: p.livenessMs,
    graceMs: p.graceMs,
    limit: p.limit ?? 100,
  });
  let failed = 0;
  const followUps: string[] = [];
  for (const step of steps) {
    const done = await db.transaction(async (tx) => {
      await lockRunOfStep(tx, { stepId: step.id });
      const claimed = await claimStep(tx, {
        ...claimChangeParams(p.claimant),
        stepId: step.id,
        leaseMs: 60_000,
      });
      if (!claimed) return undefined;
      await discardStep(
        tx,
        discardParams(step.id, claimed.claim_token, {
          change: discardPermanent,
          error: `no live worker handles kind "${step.kind}": register a handler for it on a worker, then retry the step`,
          errorKind: ErrorKind.Permanent,
          panicStack: null,
          chargeAttempt: true,
          detail: { reason: 'unserved_kind' },
        }),
      );
      return settleInTransaction(tx, step.run_id);
    });
    if (done === undefined) continue;
    failed++;
    followUps.push(...done);
  }
  return withFollowUps(failed, followUps);
}
