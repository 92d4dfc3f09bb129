import { StepState } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { lockRunOfStep } from '../tables/runs/lock-run-of-step.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { lockDueWait } from '../tables/waits/lock-due-wait.js';
import { discardChild } from '../settlement/advance-children.js';
import { cancelChildRuns } from '../settlement/cancel-child-runs.js';
import { lapseChild } from '../tables/children/child-changes.js';

/**
 * A child node whose `maxWait` lapsed, in one transaction that takes its run's lock first: the
 * node is discarded as `permanent` (`waiting_child -> discarded` by `wait_lapsed`), its child run
 * is cancelled (nothing waits for its result any more; a retry starts it again), and the run is
 * settled (fail-fast, or branch cancellation). A node that moved on meanwhile (its child ended, a
 * pause moved its deadline) is left alone. `value` is whether it lapsed the node.
 */
export function lapseChildNode(db: SqlRunner, stepId: string): Promise<WithFollowUps<boolean>> {
  return db.transaction(async (tx) => {
    const run = await lockRunOfStep(tx, { stepId });
    if (!run) return withFollowUps(false);
    const wait = await lockDueWait(tx, {
      stepId,
      waitingState: StepState.WaitingChild,
      timer: false,
    });
    if (!wait) return withFollowUps(false);
    const discarded = await discardChild(
      tx,
      stepId,
      lapseChild,
      'the child run did not finish within the maxWait of its child node',
    );
    if (!discarded) return withFollowUps(false);
    await cancelChildRuns(tx, [{ child_run_id: discarded.childRunId }]);
    return withFollowUps(true, await settleInTransaction(tx, run.id));
  });
}
