import { StepState } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { changeParams, singleFromChangeParams } from '../tables/transitions/change-params.js';
import { cancelItems } from '../tables/items/cancel-items.js';
import { discardFanOut } from '../tables/items/discard-fan-out.js';
import { cancelItem, failFanOut } from '../tables/items/fan-out-changes.js';

const discardNode = singleFromChangeParams(failFanOut);
const itemCancellation = changeParams(cancelItem);

/** Why a fan-out node fails. */
export interface FanOutFailure {
  readonly error: string;
  readonly errorKind: string;
  readonly detail: Record<string, unknown>;
}

/**
 * Discards a fan-out node and cancels its item tasks that are still open, under the run's lock.
 * The caller settles the run afterwards, which applies core's run-state rule to the discard as
 * to any other (fail-fast, or branch cancellation). False when the node was no longer pending.
 */
export async function failFanOutNode(
  db: SqlRunner,
  nodeId: string,
  failure: FanOutFailure,
): Promise<boolean> {
  const discarded = await discardFanOut(db, {
    nodeId,
    error: failure.error,
    errorKind: failure.errorKind,
    detail: JSON.stringify({ ...failure.detail, trigger: failFanOut.trigger }),
    ...discardNode,
  });
  if (!discarded) return false;
  await cancelItems(db, {
    nodeId,
    ...itemCancellation,
    runningState: StepState.Running,
  });
  return true;
}
