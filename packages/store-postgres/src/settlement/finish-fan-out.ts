import { ErrorKind, EventType, OutputBytes, payloadByteLength } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { completeFanOut } from '../tables/items/fan-out-changes.js';
import { completeNodes } from './complete-nodes.js';
import { failFanOutNode } from './fail-fan-out.js';
import type { SettlingRun } from './settling-run.js';

const completion = {
  change: completeFanOut,
  timedOut: false,
  eventType: EventType.FanOutCompleted,
};

/**
 * Completes a fan-out node with `outputJson` (its item outputs in item order, `[]` for an empty
 * list) through the completion statement a handler's success uses (`completeNodes`), so the node
 * counts off the run's open steps, promotes its dependents and may complete the run exactly as a
 * task does. A collected output over `OutputBytes` discards the node with kind `permanent`
 * instead. Runs under the run's lock.
 *
 * @returns `completed` or `discarded`; `moved-on` when the node was no longer pending
 */
export async function finishFanOut(
  db: SqlRunner,
  run: SettlingRun,
  nodeId: string,
  outputJson: string,
): Promise<'completed' | 'discarded' | 'moved-on'> {
  const bytes = payloadByteLength(outputJson);
  if (bytes > OutputBytes) {
    const failed = await failFanOutNode(db, nodeId, {
      errorKind: ErrorKind.Permanent,
      error: `the collected output of the item tasks is ${bytes} bytes of JSON, more than the ${OutputBytes}-byte limit`,
      detail: { outputBytes: bytes, limit: OutputBytes },
    });
    return failed ? 'discarded' : 'moved-on';
  }
  const done = await completeNodes(db, completion, [{ stepId: nodeId, outputJson }]);
  run.absorb(done);
  return done.completed.has(nodeId) ? 'completed' : 'moved-on';
}
