import { EventType } from '@cyclone/core';
import { singleFrom } from '../tables/transitions/change-params.js';
import type { DueWaitsResult } from '../contract/maintenance-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { lockRunOfStep } from '../tables/runs/lock-run-of-step.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
import { completeNodes } from '../settlement/complete-nodes.js';
import { DueWaitStates, findDueWaits } from '../tables/waits/find-due-waits.js';
import { lockDueWait } from '../tables/waits/lock-due-wait.js';
import { firedOutput, lapsedOutput } from '../tables/waits/wait-outputs.js';
import { fireTimer, lapseWait, SignalWaitTypes } from '../tables/waits/wait-changes.js';
import { ChildNodeTypes, lapseChild } from '../tables/children/child-changes.js';
import { lapseChildNode } from './lapse-child-node.js';

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

const fired = {
  change: fireTimer,
  waitingState: singleFrom(fireTimer),
  timedOut: false,
  eventType: EventType.TimerFired,
};
const lapsed = {
  change: lapseWait,
  waitingState: singleFrom(lapseWait),
  timedOut: true,
  eventType: EventType.WaitLapsed,
};

/**
 * Fires due timers and lapses due max waits (a child node's lapse discards it, see
 * `lapseChildNode`), at most `limit` of each per pass, each in its own transaction that holds its
 * run's lock: the wait completes through the completion statement (its dependents promoted, the
 * run possibly completed) and the run is settled in the same transaction. A wait that completed a
 * child run leaves the child's parent as a follow-up. Due times are the database clock's; a wait
 * that moved on meanwhile is skipped, so the pass is safe to run again and on several replicas.
 */
export async function fireDueWaits(
  db: SqlRunner,
  limit = 100,
): Promise<WithFollowUps<DueWaitsResult>> {
  const due = await findDueWaits(db, {
    limit,
    signalWaitTypes: SignalWaitTypes,
    childTypes: ChildNodeTypes,
  });
  const result = { fired: 0, lapsed: 0, childrenLapsed: 0 };
  const followUps: string[] = [];
  for (const { id, due: sort } of due) {
    if (sort === 'child_lapse') {
      const lapsedChild = await lapseChildNode(db, id);
      if (lapsedChild.value) result.childrenLapsed += 1;
      followUps.push(...lapsedChild.followUps);
      continue;
    }
    const timer = sort === 'timer';
    const done = await db.transaction(async (tx) => {
      const run = await lockRunOfStep(tx, { stepId: id });
      if (!run) return undefined;
      const how = timer ? fired : lapsed;
      const wait = await lockDueWait(tx, { stepId: id, waitingState: how.waitingState, timer });
      if (!wait) return undefined;
      const output = timer
        ? firedOutput(wait.now)
        : lapsedOutput(wait.node_type, wait.wait_payloads);
      const completion = await completeNodes(tx, how, [
        { stepId: id, outputJson: JSON.stringify(output) },
      ]);
      if (!completion.completed.has(id)) return undefined;
      // The run's parent (when the wait completed a child run) is a follow-up.
      const next = [...completion.marked].filter((r) => r !== run.id);
      if (completion.marked.has(run.id)) next.push(...(await settleInTransaction(tx, run.id)));
      return next;
    });
    if (done === undefined) continue;
    if (timer) result.fired += 1;
    else result.lapsed += 1;
    followUps.push(...done);
  }
  return withFollowUps(result, followUps);
}
