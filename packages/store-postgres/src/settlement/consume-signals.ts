import { StepState, EventType } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { completeNodes } from './complete-nodes.js';
import type { SettlingRun } from './settling-run.js';
import { gatherSignals } from '../tables/signals/gather-signals.js';
import {
  loadBufferedSignals,
  type BufferedSignalRow,
} from '../tables/signals/load-buffered-signals.js';
import { loadSignalWaits, type SignalWaitRow } from '../tables/waits/load-signal-waits.js';
import { consumedOutput } from '../tables/waits/wait-outputs.js';
import { consumeSignal } from '../tables/waits/wait-changes.js';

const consumed = { change: consumeSignal, timedOut: false, eventType: EventType.SignalConsumed };

interface Assignment {
  readonly wait: SignalWaitRow;
  readonly signals: BufferedSignalRow[];
}

/**
 * Hands each buffered signal, oldest first, to the first node (in declaration order) that waits
 * for its name and still needs one: a `waitSignal` or `waitAny` needs one, a `waitN` needs `n`.
 */
function assign(waits: readonly SignalWaitRow[], signals: readonly BufferedSignalRow[]) {
  const open = waits.map((wait) => ({ wait, signals: [] as BufferedSignalRow[] }));
  for (const signal of signals) {
    const taker = open.find(
      (a) =>
        a.wait.wait_signals.includes(signal.name) &&
        a.wait.wait_payloads.length + a.signals.length < a.wait.wait_n,
    );
    taker?.signals.push(signal);
  }
  return open.filter((a): a is Assignment => a.signals.length > 0);
}

/**
 * Lets the nodes of a run that wait for signals consume the signals buffered for them: each
 * consumed signal is marked with its node, a `waitN` short of its quorum keeps the payloads, and
 * every node that got what it waited for completes (`signal_consumed`) through the completion
 * statement. Runs in the transaction that holds the run's lock.
 *
 * @returns how many nodes completed
 */
export async function consumeSignals(db: SqlRunner, run: SettlingRun): Promise<number> {
  const runId = run.id;
  const waits = await loadSignalWaits(db, { runId, waitingState: StepState.WaitingSignal });
  if (waits.length === 0) return 0;
  const signals = await loadBufferedSignals(db, { runId });
  const completions = [];
  for (const { wait, signals: taken } of assign(waits, signals)) {
    const payloads = taken.map((s) => s.payload);
    await gatherSignals(db, {
      stepId: wait.id,
      signalIds: taken.map((s) => s.id),
      payloadsJson: JSON.stringify(payloads),
      waitingState: StepState.WaitingSignal,
    });
    const gathered = [...wait.wait_payloads, ...payloads];
    if (gathered.length >= wait.wait_n) {
      const output = consumedOutput(wait.node_type, gathered, taken[taken.length - 1]!);
      completions.push({ stepId: wait.id, outputJson: JSON.stringify(output) });
    }
  }
  const done = await completeNodes(db, consumed, completions);
  run.absorb(done);
  return done.completed.size;
}
