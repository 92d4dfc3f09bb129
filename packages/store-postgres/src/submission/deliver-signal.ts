import { AlreadyTerminalError, isTerminalRun, NotFoundError } from '@cyclone/core';
import type { SignalDelivery, SignalReceipt } from '../contract/run-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { lockRun } from '../tables/runs/lock-run.js';
import { settleInTransaction } from '../settlement/settle-in-transaction.js';
import { withFollowUps, type WithFollowUps } from '../settlement/settle-after-commit.js';
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
export function deliverSignal(
  db: SqlRunner,
  delivery: SignalDelivery,
): Promise<WithFollowUps<SignalReceipt>> {
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
    // A wait that consumes it may complete the run: a child run's parent is then a follow-up.
    const followUps = inserted ? await settleInTransaction(tx, runId) : [];
    const consumer = await signalConsumer(tx, { runId, rowId: inserted?.id ?? null, signalId });
    return withFollowUps({ duplicate: !inserted, consumedBy: consumer?.node ?? null }, followUps);
  });
}
