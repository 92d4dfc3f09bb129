import { NodeType, RetryAdditionalAttempts } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { singleFrom, singleFromChangeParams } from '../tables/transitions/change-params.js';
import { retrySteps } from '../tables/steps/retry-steps.js';
import {
  InProgressItemStates,
  reopenItem,
  retryFanOut,
  retryItem,
  retryItemLater,
} from '../tables/items/fan-out-changes.js';
import { reopenItems } from '../tables/items/reopen-items.js';

/** The fan-out nodes of one retry. */
export interface FanOutReopening {
  readonly runId: string;
  /** Discarded fan-out nodes the retry names (or widens to): `discarded -> pending`. */
  readonly retried: readonly string[];
  /** Fan-out nodes the retry reopens from `cancelled` (done by the retry's reopen of nodes). */
  readonly reopened: readonly string[];
}

/**
 * The fan-out part of an operator retry, under the run's lock: each retried fan-out node back to
 * `pending` (its error cleared), and the item tasks of every retried or reopened fan-out node
 * with it (see `reopen-items`). The retry then settles the run, which releases waiting items
 * into the limit's free places, expands a node that never expanded, or completes one whose items
 * all completed. Resolves with the item tasks it moved.
 */
export async function reopenFanOuts(db: SqlRunner, p: FanOutReopening): Promise<number> {
  if (p.retried.length > 0) {
    await retrySteps(db, {
      runId: p.runId,
      stepIds: [...p.retried],
      ...singleFromChangeParams(retryFanOut),
      nodeTypes: [NodeType.FanOut],
      additionalAttempts: RetryAdditionalAttempts,
    });
  }
  const nodeIds = [...p.retried, ...p.reopened];
  if (nodeIds.length === 0) return 0;
  const items = await reopenItems(db, {
    nodeIds,
    inProgressStates: InProgressItemStates,
    retryTo: retryItem.to,
    retryLaterTo: retryItemLater.to,
    retryFrom: singleFrom(retryItem),
    retryTrigger: retryItem.trigger,
    reopenTo: reopenItem.to,
    reopenFrom: singleFrom(reopenItem),
    reopenTrigger: reopenItem.trigger,
    additionalAttempts: RetryAdditionalAttempts,
  });
  return items.length;
}
