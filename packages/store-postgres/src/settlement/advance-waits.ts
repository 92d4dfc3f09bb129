import { RunState } from '@cyclone/core';
import type { Executor } from '../db/executor.js';
import { singleFrom } from '../tables/changes.js';
import { consumeSignals } from './consume-signals.js';
import { promoteWaits } from '../tables/waits/promote-waits.js';
import {
  promoteSignalWait,
  promoteTimerWait,
  SignalWaitTypes,
  TimerWaitTypes,
} from '../tables/waits/wait-changes.js';

const promotions = [
  { change: promoteSignalWait, nodeTypes: SignalWaitTypes, timer: false },
  { change: promoteTimerWait, nodeTypes: TimerWaitTypes, timer: true },
];

/**
 * Brings a run's wait nodes up to date: promotes every wait node whose dependencies completed
 * into its wait, and lets signal waits consume the signals buffered for them. A wait that
 * completes may make another wait node ready, so this repeats until nothing moves (at most once
 * per node of the run). Part of settling a run; runs in the transaction that holds its lock.
 * Nothing is promoted in a run that is not running (decision 14).
 */
export async function advanceWaits(db: Executor, runId: string): Promise<void> {
  for (;;) {
    for (const { change, nodeTypes, timer } of promotions) {
      await promoteWaits(db, {
        runId,
        nodeTypes,
        timer,
        toState: change.to,
        fromStates: change.from,
        trigger: change.trigger,
        eventFrom: singleFrom(change),
        promotingRunState: RunState.Running,
      });
    }
    const { completed } = await consumeSignals(db, runId);
    // Each pass that continues completed at least one node, so the loop ends.
    if (completed.size === 0) return;
  }
}
