import { AlreadyTerminalError, isTerminalRun, NotFoundError } from '@cyclone/core';
import type { SignalDelivery, SignalReceipt } from '../contract/run-store.js';
import type { Executor } from '../db/executor.js';
import { clearSettlement } from '../tables/outbox/clear-settlement.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { settleRun } from '../settlement/settle-run.js';
import { insertSignal } from '../tables/signals/insert-signal.js';
import { signalConsumer } from '../tables/signals/signal-consumer.js';

/**
 * Delivers a signal in one transaction that holds the run's lock: stores it, then settles the
 * run, so a node that waits for the name consumes it at once (and completes, promoting its
 * dependents and possibly completing the run); otherwise it stays buffered for the first node
 * that waits for it (decision 3).
 *
 * @throws NotFoundError for an unknown run
 * @throws AlreadyTerminalError for a run that is completed, failed or cancelled (nothing written)
 */
export function deliverSignal(db: Executor, delivery: SignalDelivery): Promise<SignalReceipt> {
  const { runId } = delivery;
  const signalId = delivery.signalId ?? null;
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, { runId });
    if (!run) throw new NotFoundError('run', runId);
    if (isTerminalRun(run.state)) throw new AlreadyTerminalError(runId, run.state);
    const inserted = await insertSignal(tx, {
      runId,
      name: delivery.name,
      payloadJson: delivery.payloadJson,
      signalId,
    });
    if (inserted) {
      await settleRun(tx, runId);
      // A wait that completed may have marked the run; it has just been settled.
      await clearSettlement(tx, { runId });
    }
    const consumer = await signalConsumer(tx, { runId, rowId: inserted?.id ?? null, signalId });
    return { duplicate: !inserted, consumedBy: consumer?.node ?? null };
  });
}
