import { StepState } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { clearSettlement } from '../tables/outbox/clear-settlement.js';
import { lockRunOfStep } from '../tables/runs/lock-run-of-step.js';
import { settleChain } from '../settlement/settle-follow-ups.js';
import { settleRun } from '../settlement/settle-run.js';
import { lockDueWait } from '../tables/waits/lock-due-wait.js';
import { discardChild } from '../settlement/advance-children.js';
import { cancelChildRuns } from '../settlement/cancel-child-runs.js';
import { lapseChild } from '../tables/children/child-changes.js';

/**
 * A child node whose `maxWait` lapsed, in one transaction that takes its run's lock first: the
 * node is discarded as `permanent` (`waiting_child -> discarded` by `wait_lapsed`), its child run
 * is cancelled (nothing waits for its result any more; a retry starts it again), and the run is
 * settled (fail-fast, or branch cancellation). A node that moved on meanwhile (its child ended, a
 * pause moved its deadline) is left alone. Returns whether it lapsed the node.
 */
export async function lapseChildNode(db: Executor, stepId: string): Promise<boolean> {
  const followUps: string[] = [];
  const done = await db.transaction(async (tx) => {
    followUps.length = 0;
    const run = await lockRunOfStep(tx, { stepId });
    if (!run) return false;
    const wait = await lockDueWait(tx, {
      stepId,
      waitingState: StepState.WaitingChild,
      timer: false,
    });
    if (!wait) return false;
    const discarded = await discardChild(
      tx,
      stepId,
      lapseChild,
      'the child run did not finish within the maxWait of its child node',
    );
    if (!discarded) return false;
    await cancelChildRuns(tx, [{ child_run_id: discarded.childRunId }]);
    followUps.push(...(await settleRun(tx, run.id)));
    await clearSettlement(tx, { runId: run.id });
    return true;
  });
  await settleChain(db, followUps);
  return done;
}
