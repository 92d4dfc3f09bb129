import { singleFrom } from '../tables/changes.js';
import type { DueWaitsResult } from '../contract/maintenance-store.js';
import type { Executor } from '../db/executor.js';
import { clearSettlement } from '../tables/outbox/clear-settlement.js';
import { lockRunOfStep } from '../tables/runs/lock-run-of-step.js';
import { settleRun } from '../settlement/settle-run.js';
import { completeWaits } from '../settlement/complete-waits.js';
import { DueWaitStates, findDueWaits } from '../tables/waits/find-due-waits.js';
import { lockDueWait } from '../tables/waits/lock-due-wait.js';
import { firedOutput, lapsedOutput } from '../tables/waits/wait-outputs.js';
import { fireTimer, lapseWait, SignalWaitTypes } from '../tables/waits/wait-changes.js';
import { ChildNodeTypes, lapseChild } from '../tables/children/child-changes.js';
import { lapseChildNode } from './lapse-child-node.js';
import { settleParentOf } from '../settlement/settle-parent-of.js';

// The finder writes its states out for the partial indexes; they must be the changes' from-states.
if (
  singleFrom(fireTimer) !== DueWaitStates.timer ||
  singleFrom(lapseWait) !== DueWaitStates.lapse ||
  singleFrom(lapseChild) !== DueWaitStates.childLapse
) {
  throw new TypeError(
    'find-due-waits no longer reads the from-states of timer_fired / wait_lapsed',
  );
}

const fired = { change: fireTimer, timedOut: false, eventType: 'timer_fired' };
const lapsed = { change: lapseWait, timedOut: true, eventType: 'wait_lapsed' };

/**
 * Fires due timers and lapses due max waits (a child node's lapse discards it, see
 * `lapseChildNode`), at most `limit` of each per pass, each in its own
 * transaction that holds its run's lock: the wait completes through the completion statement
 * (its dependents promoted, the run possibly completed) and the run is settled in the same
 * transaction. Due times are the database clock's; a wait that moved on meanwhile is skipped, so
 * the pass is safe to run again and on several replicas.
 */
export async function fireDueWaits(db: Executor, limit = 100): Promise<DueWaitsResult> {
  const due = await findDueWaits(db, {
    limit,
    signalWaitTypes: SignalWaitTypes,
    childTypes: ChildNodeTypes,
  });
  let firedCount = 0;
  let lapsedCount = 0;
  let childrenLapsed = 0;
  for (const { id, due: sort } of due) {
    if (sort === 'child_lapse') {
      if (await lapseChildNode(db, id)) childrenLapsed += 1;
      continue;
    }
    const timer = sort === 'timer';
    let runOfWait = '';
    const done = await db.transaction(async (tx) => {
      const run = await lockRunOfStep(tx, { stepId: id });
      if (!run) return false;
      runOfWait = run.id;
      const how = timer ? fired : lapsed;
      const wait = await lockDueWait(tx, {
        stepId: id,
        waitingState: singleFrom(how.change),
        timer,
      });
      if (!wait) return false;
      const output = timer
        ? firedOutput(wait.now)
        : lapsedOutput(wait.node_type, wait.wait_payloads);
      const { completed, toSettle } = await completeWaits(tx, how, [
        { stepId: id, outputJson: JSON.stringify(output) },
      ]);
      if (toSettle.has(run.id)) {
        await settleRun(tx, run.id);
        await clearSettlement(tx, { runId: run.id });
      }
      return completed.has(id);
    });
    if (done && timer) firedCount += 1;
    else if (done) lapsedCount += 1;
    // A wait that completed a child run: its parent's child node learns of it now.
    if (done) await settleParentOf(db, runOfWait);
  }
  return { fired: firedCount, lapsed: lapsedCount, childrenLapsed };
}
