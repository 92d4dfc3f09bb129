import {
  ErrorKind,
  insertedItemState,
  MaxFanOutItems,
  NodeType,
  RunState,
  StepState,
  StepTrigger,
} from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { stepIdsOf } from '../db/ids.js';
import { finishFanOut } from './finish-fan-out.js';
import { failFanOutNode } from './fail-fan-out.js';
import { insertItems } from '../tables/items/insert-items.js';
import type { SettlingRun } from './settling-run.js';
import { loadFanOutSource } from '../tables/items/load-fan-out-source.js';

/**
 * Items inserted per statement: a 10,000-item list is ten round trips, and no statement carries
 * more than a bounded number of rows and ids.
 */
export const ExpansionBatchSize = 1_000;

/** A fan-out node whose dependencies completed, ready to expand. */
export interface ReadyFanOut {
  readonly id: string;
  readonly node: string;
}

/** What an expansion did. */
export type Expansion = 'expanded' | 'completed' | 'discarded' | 'moved-on';

/**
 * Expands a ready fan-out node into its item tasks, under the run's lock and inside the
 * settlement's transaction: the source node's output must be a list of at most `maxItems`
 * elements (else the node is discarded, kind `permanent`, nothing inserted); an empty list
 * completes the node at once with `[]`; otherwise the items are inserted in batches, available
 * (paused in a paused run) up to `maxParallel`, pending beyond. A crash rolls the whole expansion
 * back, and the unique (parent_step_id, item_index) index makes a second one insert nothing.
 */
export async function expandFanOut(
  db: SqlRunner,
  run: SettlingRun,
  node: ReadyFanOut,
): Promise<Expansion> {
  const runId = run.id;
  const runPaused = run.state === RunState.Paused;
  const source = await loadFanOutSource(db, { runId, node: node.node });
  const maxItems = source?.max_items ?? MaxFanOutItems;
  if (!source?.source || source.output_type !== 'array' || source.length === null) {
    const what = source?.output_type ?? 'missing';
    const failed = await failFanOutNode(db, node.id, {
      errorKind: ErrorKind.Permanent,
      error: `the output of "${source?.source ?? '?'}" is ${article(what)}, expected a list to fan out`,
      detail: { source: source?.source ?? null, outputType: what },
    });
    return failed ? 'discarded' : 'moved-on';
  }
  if (source.length > maxItems) {
    const failed = await failFanOutNode(db, node.id, {
      errorKind: ErrorKind.Permanent,
      error: `the list from "${source.source}" has ${source.length} items, more than the limit of ${maxItems}`,
      detail: { items: source.length, limit: maxItems },
    });
    return failed ? 'discarded' : 'moved-on';
  }
  if (source.length === 0) return finishFanOut(db, run, node.id, '[]');

  const withinState = insertedItemState({ withinLimit: true, runPaused });
  const beyondState = insertedItemState({ withinLimit: false, runPaused });
  // The items take their run's millisecond, however long after the submit they are made, so they
  // live in its period (decision 348); their ids increase with their index.
  const nextItemId = stepIdsOf(runId);
  for (let offset = 0; offset < source.length; offset += ExpansionBatchSize) {
    const size = Math.min(ExpansionBatchSize, source.length - offset);
    await insertItems(db, {
      runId,
      nodeId: node.id,
      sourceNode: source.source,
      itemIds: Array.from({ length: size }, nextItemId),
      offset,
      itemType: NodeType.Item,
      withinState,
      beyondState,
      trigger: StepTrigger.FanOutExpand,
      availableState: StepState.Available,
    });
  }
  return 'expanded';
}

function article(type: string): string {
  if (type === 'missing') return 'missing';
  if (type === 'null') return 'null';
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
