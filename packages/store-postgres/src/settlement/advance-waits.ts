import { RunState } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { singleFromChangeParams } from '../tables/transitions/change-params.js';
import { promoteWaits } from '../tables/waits/promote-waits.js';
import {
  promoteSignalWait,
  promoteTimerWait,
  SignalWaitTypes,
  TimerWaitTypes,
} from '../tables/waits/wait-changes.js';
import { consumeSignals } from './consume-signals.js';
import type { SettlingRun } from './settling-run.js';

const promotions = [
  { change: singleFromChangeParams(promoteSignalWait), nodeTypes: SignalWaitTypes, timer: false },
  { change: singleFromChangeParams(promoteTimerWait), nodeTypes: TimerWaitTypes, timer: true },
];

/**
 * Brings a run's wait nodes up to date: promotes every wait node whose dependencies completed
 * into its wait, and lets signal waits consume the signals buffered for them. A wait that
 * completes may make another wait node ready, so this repeats until nothing moves (at most once
 * per node of the run) or a completion ends the run. Nothing is promoted in a run that is not
 * running (decision 14).
 *
 * @returns whether a wait node completed
 */
export async function advanceWaits(db: SqlRunner, run: SettlingRun): Promise<boolean> {
  let moved = false;
  while (!run.ended) {
    for (const { change, nodeTypes, timer } of promotions) {
      await promoteWaits(db, {
        runId: run.id,
        nodeTypes,
        timer,
        ...change,
        promotingRunState: RunState.Running,
      });
    }
    const completed = await consumeSignals(db, run);
    // Each pass that continues completed at least one node, so the loop ends.
    if (completed === 0) break;
    moved = true;
  }
  return moved;
}
