import { ErrorKind, OutputBytes, payloadByteLength } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { singleFrom } from '../tables/changes.js';
import { afterCompletion } from '../tables/steps/after-completion.js';
import { completeSteps } from '../tables/steps/complete-steps.js';
import { completeFanOut } from '../tables/items/fan-out-changes.js';
import { failFanOutNode } from './fail-fan-out.js';

/**
 * Completes a fan-out node with `outputJson` (its item outputs in item order, `[]` for an empty
 * list) through the completion statement a handler's success uses, so the node counts off the
 * run's open steps, promotes its dependents and may complete the run exactly as a task does; no
 * attempt is counted and no claim fences it (the run's lock does). A collected output over
 * `OutputBytes` discards the node with kind `permanent` instead. Runs under the run's lock.
 *
 * @returns `completed` or `discarded`; `moved-on` when the node was no longer pending
 */
export async function finishFanOut(
  db: Executor,
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
  const rows = await completeSteps(db, {
    ...afterCompletion,
    countAttempt: false,
    timedOut: false,
    completeEventType: 'fan_out_completed',
    completeTo: completeFanOut.to,
    completeFrom: completeFanOut.from,
    completeTrigger: completeFanOut.trigger,
    completeEventFrom: singleFrom(completeFanOut),
    stepIds: [nodeId],
    claimTokens: [null],
    outputs: [outputJson],
  });
  return rows.some((r) => r.what === 'done' && r.id === nodeId) ? 'completed' : 'moved-on';
}
