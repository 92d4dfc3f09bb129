import { ErrorKind, NodeType, RunState, StepState } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { singleFromChangeParams } from '../tables/transitions/change-params.js';
import { collectItemOutputs } from '../tables/items/collect-item-outputs.js';
import { finishFanOut } from './finish-fan-out.js';
import { expandFanOut } from './expand-fan-out.js';
import { failFanOutNode } from './fail-fan-out.js';
import {
  InProgressItemStates,
  releaseItem,
  UnfinishedItemStates,
} from '../tables/items/fan-out-changes.js';
import { findFanOuts, type OpenFanOutRow } from '../tables/items/find-fan-outs.js';
import { readFanOutProgress } from '../tables/items/read-fan-out-progress.js';
import { releaseItems } from '../tables/items/release-items.js';
import type { SettlingRun } from './settling-run.js';

const release = singleFromChangeParams(releaseItem);

/**
 * Moves a run's fan-out nodes on, as part of settling it (under its lock, in the settlement's
 * transaction): expands each node whose dependencies completed, and for each expanded one
 * discards it when an item task was discarded (with that item's error kind, cancelling the
 * others), completes it with the item outputs once every item completed, or else releases
 * waiting items into the free places of its limit. A paused run expands (items paused within the
 * limit) and may finish a node, but releases nothing: it starts no new work.
 *
 * @returns whether a fan-out node reached a terminal state: its dependents may now be ready (a
 *   wait, or another fan-out), so the settlement goes round again
 */
export async function advanceFanOuts(db: SqlRunner, run: SettlingRun): Promise<boolean> {
  const nodes = await findFanOuts(db, {
    runId: run.id,
    fanOutType: NodeType.FanOut,
    pendingState: StepState.Pending,
  });
  let ended = false;
  for (const node of nodes) {
    if (run.ended) break;
    const outcome = node.expanded
      ? await progress(db, run, node)
      : await expandFanOut(db, run, node);
    if (outcome === 'completed' || outcome === 'discarded') ended = true;
  }
  return ended;
}

async function progress(
  db: SqlRunner,
  run: SettlingRun,
  node: OpenFanOutRow,
): Promise<'completed' | 'discarded' | 'moved-on' | 'released'> {
  const state = await readFanOutProgress(db, {
    nodeId: node.id,
    countInProgress: node.max_parallel !== null,
    inProgressStates: InProgressItemStates,
    unfinishedStates: UnfinishedItemStates,
    discardedState: StepState.Exhausted,
    waitingState: release.eventFrom,
  });
  if (state.discarded_index !== null) {
    const failed = await failFanOutNode(db, node.id, {
      errorKind: state.discarded_kind ?? ErrorKind.Permanent,
      error: `item ${state.discarded_index} was discarded: ${state.discarded_error ?? 'no error recorded'}`,
      detail: { itemIndex: state.discarded_index },
    });
    return failed ? 'discarded' : 'moved-on';
  }
  if (!state.unfinished) {
    return finishFanOut(db, run, node.id, await collectItemOutputs(db, { nodeId: node.id }));
  }
  // Without a limit every item was inserted available; only items a retry reopened wait.
  if (
    !state.waiting ||
    run.state === RunState.Paused ||
    (node.max_parallel !== null && state.in_progress >= node.max_parallel)
  ) {
    return 'moved-on';
  }
  await releaseItems(db, {
    nodeId: node.id,
    inProgressStates: InProgressItemStates,
    ...release,
  });
  return 'released';
}
