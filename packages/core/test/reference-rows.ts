/**
 * The transition tables transcribed by hand from the state reference
 * (shared/seeds/000_79c3117973096e06.txt), independently of `src/transitions.ts`, so a test can
 * compare the two and a missing or extra row fails. Test data only: not part of the package.
 */
import type { TransitionTable } from '../src/transitions.js';

/** [table, from ('-' = inserted), to, trigger]: one line per from-state and per cause. */
export type Row = readonly [TransitionTable, string, string, string];

/**
 * The reference's Step State Transition Table, Child Nodes and Fan-Out Nodes and Item Tasks tables.
 * A row listing several causes or from-states is split, one line each.
 */
// prettier-ignore
export const REFERENCE_STEP_ROWS: readonly Row[] = [
  // Step State Transition Table
  ['step', '-', 'pending', 'submit'],                      // submitted with upstream deps not yet completed
  ['step', '-', 'available', 'submit'],                    // no dependencies, or standalone job
  ['step', 'pending', 'available', 'promote'],             // last upstream dependency completed
  ['step', 'available', 'running', 'claim'],               // FOR UPDATE SKIP LOCKED
  ['step', 'running', 'completed', 'complete'],            // handler returns nil
  ['step', 'running', 'available', 'retryable_error'],     // attempt < maxAttempts, backoff
  ['step', 'running', 'available', 'snooze'],              // Snooze(d)
  ['step', 'pending', 'waiting_signal', 'promote'],        // WaitSignal / WaitAny promotion
  ['step', 'pending', 'waiting_timer', 'promote'],         // WaitTimer promotion
  ['step', 'waiting_signal', 'completed', 'signal_consumed'],
  ['step', 'waiting_signal', 'completed', 'wait_lapsed'],
  ['step', 'waiting_timer', 'completed', 'timer_fired'],
  ['step', 'running', 'discarded', 'permanent_error'],
  ['step', 'running', 'discarded', 'attempts_exhausted'],
  ['step', 'running', 'discarded', 'run_deadline'],
  ['step', 'running', 'available', 'reclaim'],
  ['step', 'running', 'discarded', 'reclaim_limit'],
  ['step', 'running', 'cancelled', 'fail_fast'],
  ['step', 'running', 'cancelled', 'cancel'],
  ['step', 'running', 'cancelled', 'cancel_branch'],
  ['step', 'available', 'cancelled', 'fail_fast'],
  ['step', 'available', 'cancelled', 'cancel_branch'],
  ['step', 'available', 'cancelled', 'cancel'],
  ['step', 'pending', 'cancelled', 'fail_fast'],
  ['step', 'pending', 'cancelled', 'cancel_branch'],
  ['step', 'pending', 'cancelled', 'cancel'],
  ['step', 'waiting_signal', 'cancelled', 'cancel_branch'],
  ['step', 'waiting_signal', 'cancelled', 'cancel'],
  ['step', 'waiting_signal', 'cancelled', 'fail_fast'],
  ['step', 'waiting_timer', 'cancelled', 'cancel_branch'],
  ['step', 'waiting_timer', 'cancelled', 'cancel'],
  ['step', 'waiting_timer', 'cancelled', 'fail_fast'],
  ['step', 'discarded', 'available', 'operator_retry'],
  ['step', 'available', 'paused', 'pause'],
  ['step', 'waiting_signal', 'paused', 'pause'],
  ['step', 'waiting_timer', 'paused', 'pause'],
  ['step', 'running', 'paused', 'retryable_error'],        // a failed attempt while paused
  ['step', 'running', 'paused', 'snooze'],
  ['step', 'running', 'paused', 'reclaim'],
  ['step', 'paused', 'available', 'resume'],
  ['step', 'paused', 'waiting_signal', 'resume'],
  ['step', 'paused', 'waiting_timer', 'resume'],
  ['step', 'paused', 'cancelled', 'cancel'],
  ['step', 'paused', 'cancelled', 'fail_fast'],
  ['step', 'paused', 'cancelled', 'cancel_branch'],
  // Child Nodes
  ['child', '-', 'waiting_child', 'submit'],
  ['child', 'pending', 'waiting_child', 'promote'],
  ['child', 'waiting_child', 'completed', 'child_completed'],
  ['child', 'waiting_child', 'discarded', 'child_failed'], // failed, cancelled, no result, did not build
  ['child', 'waiting_child', 'discarded', 'wait_lapsed'],  // WithMaxWait elapsed
  ['child', 'waiting_child', 'discarded', 'run_deadline'], // parent's run deadline
  ['child', 'waiting_child', 'cancelled', 'cancel'],
  ['child', 'waiting_child', 'cancelled', 'fail_fast'],
  ['child', 'waiting_child', 'cancelled', 'cancel_branch'],
  ['child', 'waiting_child', 'paused', 'pause'],
  ['child', 'paused', 'waiting_child', 'resume'],
  ['child', 'discarded', 'pending', 'operator_retry'],
  ['child', 'cancelled', 'pending', 'operator_retry_reopen'],
  // Fan-Out Nodes and Item Tasks
  ['fan-out', '-', 'available', 'fan_out_expand'],
  ['fan-out', '-', 'paused', 'fan_out_expand'],
  ['fan-out', '-', 'pending', 'fan_out_expand'],
  ['fan-out', 'pending', 'available', 'fan_out_slot_freed'],
  ['fan-out', 'pending', 'completed', 'fan_out_completed'],
  ['fan-out', 'pending', 'discarded', 'fan_out_failed'],
  ['fan-out', 'pending', 'cancelled', 'fan_out_item_cancelled'],
  ['fan-out', 'available', 'cancelled', 'fan_out_item_cancelled'],
  ['fan-out', 'running', 'cancelled', 'fan_out_item_cancelled'],
  ['fan-out', 'paused', 'cancelled', 'fan_out_item_cancelled'],
  ['fan-out', 'discarded', 'pending', 'operator_retry'],
];

/** Cyclone's own rows, where the reference's tables are silent. */
// prettier-ignore
export const DECISION_STEP_ROWS: readonly Row[] = [
  ['step', 'running', 'available', 'transient_error'],
  ['step', 'running', 'paused', 'transient_error'],
  ['step', 'running', 'available', 'release'],
  ['step', 'running', 'paused', 'release'],
  ['step', 'pending', 'discarded', 'run_deadline'],
  ['step', 'available', 'discarded', 'run_deadline'],
  ['step', 'waiting_signal', 'discarded', 'run_deadline'],
  ['step', 'waiting_timer', 'discarded', 'run_deadline'],
  ['step', '-', 'waiting_signal', 'submit'],
  ['step', '-', 'waiting_timer', 'submit'],
  ['step', 'cancelled', 'pending', 'operator_retry_reopen'],
  ['step', 'discarded', 'pending', 'operator_retry'],
  ['step', 'pending', 'completed', 'cache_hit'],
  // An operator's move of one node (client.forceStep), from each non-terminal state of a node.
  ...(['pending', 'available', 'running', 'waiting_signal', 'waiting_timer', 'waiting_child', 'paused'] as const)
    .flatMap((from) => (['completed', 'discarded', 'cancelled'] as const)
      .map((to): Row => ['step', from, to, 'force'])),
];

/** The reference's Run State Transition Table, one line per cause. */
// prettier-ignore
export const REFERENCE_RUN_ROWS: readonly Row[] = [
  ['run', '-', 'running', 'submit'],
  ['run', 'running', 'completed', 'complete'],
  ['run', 'running', 'failed', 'discard_uncontained'],
  ['run', 'running', 'failed', 'run_deadline'],
  ['run', 'running', 'cancelled', 'cancel'],
  ['run', 'failed', 'running', 'operator_retry'],
  ['run', 'running', 'paused', 'pause'],
  ['run', 'paused', 'running', 'resume'],
  ['run', 'paused', 'completed', 'complete'],
  ['run', 'paused', 'failed', 'discard_uncontained'],
  ['run', 'paused', 'cancelled', 'cancel'],
];
