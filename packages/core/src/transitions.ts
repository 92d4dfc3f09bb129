/**
 * The transition tables as data: every move a step or a run may make, with the trigger that makes it.
 * The rule function (`proposeStep` / `proposeRun`), the store's guarded `UPDATE`s and the generated
 * `STATE_MACHINE.md` all read these rows, so the code, the SQL and the diagram cannot disagree.
 *
 * Rows transcribe the four tables of the state reference (Step State Transition Table, Child Nodes,
 * Fan-Out Nodes and Item Tasks, Run State Transition Table). A reference row that lists several
 * from-states or several causes becomes one row per from-state and per trigger. Rows that Cyclone adds
 * where the reference is silent carry `source: 'decision'`, so they stay visible.
 *
 * @packageDocumentation
 */
import { RunState, StepState } from './states.js';
import { RunTrigger, StepTrigger } from './triggers.js';

/** The kinds of node a workflow holds; an `item` is a fan-out node's item task (a step, not a node). */
export const NodeType = {
  /** A task node (also a standalone job): claimed and executed by a worker. */
  Task: 'task',
  /** An item task of a fan-out node: an ordinary claimed step, inserted when the node expands. */
  Item: 'item',
  /** A fan-out node: never claimed; the engine expands it into item tasks and finishes it. */
  FanOut: 'fan_out',
  /** A child node: never claimed; waits for its child run. */
  Child: 'child',
  /** A wait for one named signal. */
  WaitSignal: 'wait_signal',
  /** A wait for the first of several named signals. */
  WaitAny: 'wait_any',
  /** A wait for a quorum of `n` signals. */
  WaitN: 'wait_n',
  /** A wait for a timer. */
  WaitTimer: 'wait_timer',
} as const;
/** A {@link NodeType} value. */
export type NodeType = (typeof NodeType)[keyof typeof NodeType];

/** Every node type, in declaration order. */
export const NODE_TYPES: readonly NodeType[] = Object.freeze(Object.values(NodeType));

/** Which table of the reference a row belongs to (or, for a decision row, extends). */
export type TransitionTable = 'step' | 'child' | 'fan-out' | 'run';

/** Where a row comes from: transcribed from the state reference, or a Cyclone decision where it is silent. */
export type TransitionSource = 'reference' | 'decision';

/** One allowed move: from a state (or `null`, meaning the row is inserted in `to`) to a state, by a trigger. */
export interface TransitionRow<S extends string, T extends string> {
  /** The state before the move; `null` is "(inserted)": the row is created in `to`. */
  readonly from: S | null;
  /** The state after the move. */
  readonly to: S;
  /** Why the move happens. */
  readonly trigger: T;
  /** The reference table the row belongs to. */
  readonly table: TransitionTable;
  /** The node types the row applies to; absent means every type (run rows have none). */
  readonly nodeTypes?: readonly NodeType[];
  /** The reference's trigger text, condensed. */
  readonly description: string;
  /** Whether the row is transcribed from the reference or is a Cyclone decision. */
  readonly source: TransitionSource;
}

/** A row of {@link STEP_TRANSITIONS}. */
export type StepTransition = TransitionRow<StepState, StepTrigger>;
/** A row of {@link RUN_TRANSITIONS}. */
export type RunTransition = TransitionRow<RunState, RunTrigger>;

// Short aliases keep the tables below one row a line, so they read like the reference's tables.
// The tables are exempt from Prettier for the same reason.
const S = StepState;
const T = StepTrigger;
const N = NodeType;

// Node-type groups. They make each row say which nodes can actually be in its from-state: a child or
// fan-out node is never claimed, a wait node never runs, an item task is never submitted.
const WORKER: readonly NodeType[] = [N.Task, N.Item];
const SIGNAL_WAITS: readonly NodeType[] = [N.WaitSignal, N.WaitAny, N.WaitN];
const TIMER: readonly NodeType[] = [N.WaitTimer];
const CHILD: readonly NodeType[] = [N.Child];
const FAN_OUT: readonly NodeType[] = [N.FanOut];
const ITEM: readonly NodeType[] = [N.Item];
const ALL: readonly NodeType[] = NODE_TYPES;
/** Item tasks are not nodes: they are inserted by expansion, never submitted, never branch-cancelled. */
const NODES: readonly NodeType[] = NODE_TYPES.filter((t) => t !== N.Item);
/** Every type that can be `paused`: what was available or waiting at the pause. */
const PAUSABLE: readonly NodeType[] = [...WORKER, ...SIGNAL_WAITS, ...TIMER, ...CHILD];
const PAUSABLE_NODES: readonly NodeType[] = PAUSABLE.filter((t) => t !== N.Item);

type StepRowInput = Omit<StepTransition, 'source' | 'table'> & {
  readonly source?: TransitionSource;
};

function step(table: TransitionTable, rows: readonly StepRowInput[]): StepTransition[] {
  return rows.map((row) => ({ ...row, table, source: row.source ?? 'reference' }));
}

/** The reference's Step State Transition Table. */
// prettier-ignore
const STEP_TABLE = step('step', [
  { from: null, to: S.Pending, trigger: T.Submit, nodeTypes: NODES, description: 'Submitted with upstream dependencies not yet completed' },
  { from: null, to: S.Available, trigger: T.Submit, nodeTypes: [N.Task], description: 'Submitted with no dependencies, or a standalone job' },
  { from: S.Pending, to: S.Available, trigger: T.Promote, nodeTypes: [N.Task], description: 'The last upstream dependency reached completed' },
  { from: S.Available, to: S.Running, trigger: T.Claim, nodeTypes: WORKER, description: 'A worker claims the step with FOR UPDATE SKIP LOCKED' },
  { from: S.Running, to: S.Completed, trigger: T.Complete, nodeTypes: WORKER, description: 'The handler returned; the output is stored' },
  { from: S.Running, to: S.Available, trigger: T.RetryableError, nodeTypes: WORKER, description: 'Retryable error (or timeout) and attempt < maxAttempts; scheduled_at = now() + backoff' },
  { from: S.Running, to: S.Available, trigger: T.Snooze, nodeTypes: WORKER, description: 'The handler returned snooze(d); scheduled_at = now() + d; the attempt is not incremented' },
  { from: S.Pending, to: S.WaitingSignal, trigger: T.Promote, nodeTypes: SIGNAL_WAITS, description: 'Promotion moves a signal wait straight from pending; no worker ever claims it' },
  { from: S.Pending, to: S.WaitingTimer, trigger: T.Promote, nodeTypes: TIMER, description: 'Promotion moves a timer wait straight from pending; scheduled_at = now() + wait_for' },
  { from: S.WaitingSignal, to: S.Completed, trigger: T.SignalConsumed, nodeTypes: SIGNAL_WAITS, description: 'The signal was consumed (a waitN quorum completes with the payloads it gathered)' },
  { from: S.WaitingSignal, to: S.Completed, trigger: T.WaitLapsed, nodeTypes: SIGNAL_WAITS, description: 'The maxWait bound lapsed: the node completes with timedOut true and emits wait_lapsed' },
  { from: S.WaitingTimer, to: S.Completed, trigger: T.TimerFired, nodeTypes: TIMER, description: 'The timer fired' },
  { from: S.Running, to: S.Exhausted, trigger: T.PermanentError, nodeTypes: WORKER, description: 'The handler returned permanent(err)' },
  { from: S.Running, to: S.Exhausted, trigger: T.AttemptsExhausted, nodeTypes: WORKER, description: 'A retryable failure on the last attempt (attempt == maxAttempts)' },
  { from: S.Running, to: S.Exhausted, trigger: T.RunDeadline, nodeTypes: WORKER, description: "The run's deadline elapsed; error_kind = deadline" },
  { from: S.Running, to: S.Available, trigger: T.Reclaim, nodeTypes: WORKER, description: 'The lease expired and the sweep reclaimed it; reclaims + 1, no attempt charged, no backoff' },
  { from: S.Running, to: S.Exhausted, trigger: T.ReclaimLimit, nodeTypes: WORKER, description: 'The lease expired after maxReclaims reclaims; error_kind = reclaim_limit, no attempt charged' },
  { from: S.Running, to: S.Cancelled, trigger: T.FailFast, nodeTypes: WORKER, description: 'Fail-fast from another discarded node' },
  { from: S.Running, to: S.Cancelled, trigger: T.Cancel, nodeTypes: WORKER, description: 'client.cancel' },
  { from: S.Running, to: S.Cancelled, trigger: T.CancelBranch, nodeTypes: [N.Task], description: 'A dependency was discarded and this node declared CancelBranch' },
  { from: S.Available, to: S.Cancelled, trigger: T.FailFast, nodeTypes: WORKER, description: 'Fail-fast from another discarded node' },
  { from: S.Available, to: S.Cancelled, trigger: T.CancelBranch, nodeTypes: [N.Task], description: 'Branch cancellation under CancelBranch' },
  { from: S.Available, to: S.Cancelled, trigger: T.Cancel, nodeTypes: WORKER, description: 'client.cancel' },
  { from: S.Pending, to: S.Cancelled, trigger: T.FailFast, nodeTypes: ALL, description: 'Fail-fast from another discarded node' },
  { from: S.Pending, to: S.Cancelled, trigger: T.CancelBranch, nodeTypes: NODES, description: 'Branch cancellation under CancelBranch' },
  { from: S.Pending, to: S.Cancelled, trigger: T.Cancel, nodeTypes: ALL, description: 'client.cancel' },
  { from: S.WaitingSignal, to: S.Cancelled, trigger: T.CancelBranch, nodeTypes: SIGNAL_WAITS, description: 'Branch cancellation under CancelBranch' },
  { from: S.WaitingSignal, to: S.Cancelled, trigger: T.Cancel, nodeTypes: SIGNAL_WAITS, description: 'Run-level cancellation: client.cancel' },
  { from: S.WaitingSignal, to: S.Cancelled, trigger: T.FailFast, nodeTypes: SIGNAL_WAITS, description: 'Run-level cancellation: fail-fast' },
  { from: S.WaitingTimer, to: S.Cancelled, trigger: T.CancelBranch, nodeTypes: TIMER, description: 'Branch cancellation: the parked timer is cancelled with the branch' },
  { from: S.WaitingTimer, to: S.Cancelled, trigger: T.Cancel, nodeTypes: TIMER, description: 'Run-level cancellation: client.cancel' },
  { from: S.WaitingTimer, to: S.Cancelled, trigger: T.FailFast, nodeTypes: TIMER, description: 'Run-level cancellation: fail-fast' },
  { from: S.Exhausted, to: S.Available, trigger: T.OperatorRetry, nodeTypes: WORKER, description: 'client.retry / retryAll: attempts kept, max_attempts raised, reclaims reset to 0' },
  { from: S.Available, to: S.Paused, trigger: T.Pause, nodeTypes: WORKER, description: 'run.pause' },
  { from: S.WaitingSignal, to: S.Paused, trigger: T.Pause, nodeTypes: SIGNAL_WAITS, description: 'run.pause; the wait keeps its payloads and the time it had left' },
  { from: S.WaitingTimer, to: S.Paused, trigger: T.Pause, nodeTypes: TIMER, description: 'run.pause; the timer keeps the time it had left' },
  { from: S.Running, to: S.Paused, trigger: T.RetryableError, nodeTypes: WORKER, description: 'A failed attempt while the run is paused (available then paused, one transaction)' },
  { from: S.Running, to: S.Paused, trigger: T.Snooze, nodeTypes: WORKER, description: 'A snooze while the run is paused (available then paused, one transaction)' },
  { from: S.Running, to: S.Paused, trigger: T.Reclaim, nodeTypes: WORKER, description: 'A reclaim while the run is paused (available then paused, one transaction)' },
  { from: S.Paused, to: S.Available, trigger: T.Resume, nodeTypes: WORKER, description: 'run.resume for a step that is not a wait; scheduled_at unchanged' },
  { from: S.Paused, to: S.WaitingSignal, trigger: T.Resume, nodeTypes: SIGNAL_WAITS, description: 'run.resume for a signal wait; a maxWait limit moves forward by the pause' },
  { from: S.Paused, to: S.WaitingTimer, trigger: T.Resume, nodeTypes: TIMER, description: 'run.resume for a timer; scheduled_at moves forward by the pause' },
  { from: S.Paused, to: S.Cancelled, trigger: T.Cancel, nodeTypes: PAUSABLE, description: 'client.cancel' },
  { from: S.Paused, to: S.Cancelled, trigger: T.FailFast, nodeTypes: PAUSABLE, description: 'Fail-fast from another discarded node' },
  { from: S.Paused, to: S.Cancelled, trigger: T.CancelBranch, nodeTypes: PAUSABLE_NODES, description: 'Branch cancellation under CancelBranch' },
]);

/** The reference's Child Nodes table: a child node is never claimed and never running. */
// prettier-ignore
const CHILD_TABLE = step('child', [
  { from: null, to: S.WaitingChild, trigger: T.Submit, nodeTypes: CHILD, description: 'A child node with no dependencies' },
  { from: S.Pending, to: S.WaitingChild, trigger: T.Promote, nodeTypes: CHILD, description: 'The last dependency of the child node completed; a maxWait limit starts' },
  { from: S.WaitingChild, to: S.Completed, trigger: T.ChildCompleted, nodeTypes: CHILD, description: 'The child run completed; the node stores its result' },
  { from: S.WaitingChild, to: S.Exhausted, trigger: T.ChildFailed, nodeTypes: CHILD, description: 'The child run failed, was cancelled or gave no result, or the child workflow did not build; kind permanent' },
  { from: S.WaitingChild, to: S.Exhausted, trigger: T.WaitLapsed, nodeTypes: CHILD, description: 'The maxWait limit elapsed; kind permanent' },
  { from: S.WaitingChild, to: S.Exhausted, trigger: T.RunDeadline, nodeTypes: CHILD, description: 'The parent run deadline elapsed; kind deadline' },
  { from: S.WaitingChild, to: S.Cancelled, trigger: T.Cancel, nodeTypes: CHILD, description: 'client.cancel; the child run is cancelled in the same transaction' },
  { from: S.WaitingChild, to: S.Cancelled, trigger: T.FailFast, nodeTypes: CHILD, description: 'Fail-fast; the child run is cancelled in the same transaction' },
  { from: S.WaitingChild, to: S.Cancelled, trigger: T.CancelBranch, nodeTypes: CHILD, description: 'Branch cancellation; the child run is cancelled in the same transaction' },
  { from: S.WaitingChild, to: S.Paused, trigger: T.Pause, nodeTypes: CHILD, description: 'run.pause; the child run continues' },
  { from: S.Paused, to: S.WaitingChild, trigger: T.Resume, nodeTypes: CHILD, description: 'run.resume; the maxWait limit keeps the time it had left' },
  { from: S.Exhausted, to: S.Pending, trigger: T.OperatorRetry, nodeTypes: CHILD, description: 'client.retry / retryAll; the node reuses its child run, which starts again' },
  { from: S.Cancelled, to: S.Pending, trigger: T.OperatorRetryReopen, nodeTypes: CHILD, description: 'client.retry / retryAll; the cancelled child run starts again' },
]);

/** The reference's Fan-Out Nodes and Item Tasks table; item tasks also use the step table. */
// prettier-ignore
const FAN_OUT_TABLE = step('fan-out', [
  { from: null, to: S.Available, trigger: T.FanOutExpand, nodeTypes: ITEM, description: 'Expansion inserts item tasks, available up to the maxParallel limit' },
  { from: null, to: S.Paused, trigger: T.FanOutExpand, nodeTypes: ITEM, description: 'Expansion in a paused run: item tasks up to the limit are paused' },
  { from: null, to: S.Pending, trigger: T.FanOutExpand, nodeTypes: ITEM, description: 'Item tasks after the maxParallel limit' },
  { from: S.Pending, to: S.Available, trigger: T.FanOutSlotFreed, nodeTypes: ITEM, description: 'A sibling item task finished, the limit has a free place, and the run is not paused' },
  { from: S.Pending, to: S.Completed, trigger: T.FanOutCompleted, nodeTypes: FAN_OUT, description: 'The last item task completed, or the list is empty; output = item outputs in order' },
  { from: S.Pending, to: S.Exhausted, trigger: T.FanOutFailed, nodeTypes: FAN_OUT, description: "An item task was discarded (its kind), or too many items, oversize output, or input not a list (permanent)" },
  { from: S.Pending, to: S.Cancelled, trigger: T.FanOutItemCancelled, nodeTypes: ITEM, description: 'Its fan-out node was discarded; every item must succeed, so the others stop' },
  { from: S.Available, to: S.Cancelled, trigger: T.FanOutItemCancelled, nodeTypes: ITEM, description: 'Its fan-out node was discarded; every item must succeed, so the others stop' },
  { from: S.Running, to: S.Cancelled, trigger: T.FanOutItemCancelled, nodeTypes: ITEM, description: 'Its fan-out node was discarded; every item must succeed, so the others stop' },
  { from: S.Paused, to: S.Cancelled, trigger: T.FanOutItemCancelled, nodeTypes: ITEM, description: 'Its fan-out node was discarded; every item must succeed, so the others stop' },
  { from: S.Exhausted, to: S.Pending, trigger: T.OperatorRetry, nodeTypes: FAN_OUT, description: 'client.retry / retryAll (node or item ID) reopens the node and its discarded item tasks' },
]);

/** Rows Cyclone adds where the reference's tables are silent. Each one is listed as a decision. */
// prettier-ignore
const STEP_DECISIONS = step('step', [
  // The Error Kinds table says a transient failure returns the step to available at the same attempt,
  // but the transition table has no row for it.
  { from: S.Running, to: S.Available, trigger: T.TransientError, nodeTypes: WORKER, description: "The step's input could not be read (database error); same attempt again", source: 'decision' },
  { from: S.Running, to: S.Paused, trigger: T.TransientError, nodeTypes: WORKER, description: 'A transient failure while the run is paused (available then paused, one transaction)', source: 'decision' },
  // A graceful shutdown is not a crash: the step goes back without charging an attempt or a reclaim.
  { from: S.Running, to: S.Available, trigger: T.Release, nodeTypes: WORKER, description: 'A worker shutting down gives back the in-flight step; no attempt charged, reclaims unchanged', source: 'decision' },
  { from: S.Running, to: S.Paused, trigger: T.Release, nodeTypes: WORKER, description: 'A release while the run is paused (available then paused, one transaction)', source: 'decision' },
  // The reference says the deadline scanner discards *every* non-terminal step, but its table lists
  // only running (and waiting_child). Paused steps are left alone: no scanner moves a paused step.
  { from: S.Pending, to: S.Exhausted, trigger: T.RunDeadline, nodeTypes: ALL, description: "The run's deadline elapsed; error_kind = deadline", source: 'decision' },
  { from: S.Available, to: S.Exhausted, trigger: T.RunDeadline, nodeTypes: WORKER, description: "The run's deadline elapsed; error_kind = deadline", source: 'decision' },
  { from: S.WaitingSignal, to: S.Exhausted, trigger: T.RunDeadline, nodeTypes: SIGNAL_WAITS, description: "The run's deadline elapsed; error_kind = deadline", source: 'decision' },
  { from: S.WaitingTimer, to: S.Exhausted, trigger: T.RunDeadline, nodeTypes: TIMER, description: "The run's deadline elapsed; error_kind = deadline", source: 'decision' },
  // Like a child node with no dependencies, a wait node with none is inserted straight into its wait.
  { from: null, to: S.WaitingSignal, trigger: T.Submit, nodeTypes: SIGNAL_WAITS, description: 'A signal wait with no dependencies', source: 'decision' },
  { from: null, to: S.WaitingTimer, trigger: T.Submit, nodeTypes: TIMER, description: 'A timer wait with no dependencies; scheduled_at = now() + wait_for', source: 'decision' },
  // api.md decision: retry also reopens what fail-fast or branch cancellation cancelled because of
  // the retried discard, so the reopened run can complete. (Child nodes have a reference row.)
  { from: S.Cancelled, to: S.Pending, trigger: T.OperatorRetryReopen, nodeTypes: NODE_TYPES.filter((t) => t !== N.Child), description: 'client.retry / retryAll reopens a step that fail-fast or branch cancellation cancelled because of the retried discard', source: 'decision' },
  // The reference reopens a fan-out node "and its discarded item tasks together" but gives item tasks
  // only discarded -> available: a retried item beyond the maxParallel limit waits in pending instead.
  { from: S.Exhausted, to: S.Pending, trigger: T.OperatorRetry, nodeTypes: ITEM, description: 'client.retry / retryAll of a fan-out node: a discarded item task beyond the maxParallel limit waits for a free place', source: 'decision' },
  // Result caching (api.md, round 3): a cached task that became ready completes from the cache without
  // ever being claimed; on a miss it is promoted as usual.
  { from: S.Pending, to: S.Completed, trigger: T.CacheHit, nodeTypes: [N.Task], description: "Its cache key matched an output of its kind within the entry's ttl; completes with it, never claimed", source: 'decision' },
]);

// An operator's move of one node (client.forceStep): from every non-terminal state each node type can
// be in to each terminal state. Item tasks are moved with their fan-out node, never on their own.
const FORCED_FROM: readonly (readonly [StepState, readonly NodeType[]])[] = [
  [S.Pending, NODES],
  [S.Available, [N.Task]],
  [S.Running, [N.Task]],
  [S.WaitingSignal, SIGNAL_WAITS],
  [S.WaitingTimer, TIMER],
  [S.WaitingChild, CHILD],
  [S.Paused, PAUSABLE_NODES],
];
const FORCED_MOVES = step(
  'step',
  FORCED_FROM.flatMap(([from, nodeTypes]) =>
    [S.Completed, S.Exhausted, S.Cancelled].map((to) => ({
      from,
      to,
      trigger: T.Force,
      nodeTypes,
      source: 'decision' as const,
      description:
        'An operator moved the node by hand (client.forceStep); the event records forced and the reason',
    })),
  ),
);

type RunRowInput = Omit<RunTransition, 'source' | 'table'> & {
  readonly source?: TransitionSource;
};

function run(rows: readonly RunRowInput[]): RunTransition[] {
  return rows.map((row) => ({ ...row, table: 'run', source: row.source ?? 'reference' }));
}

/** The reference's Run State Transition Table. */
// prettier-ignore
const RUN_TABLE = run([
  { from: null, to: RunState.Running, trigger: RunTrigger.Submit, description: 'submit or enqueue called' },
  { from: RunState.Running, to: RunState.Completed, trigger: RunTrigger.Complete, description: 'All steps completed, or CancelBranch contained every discard and no non-terminal step remains' },
  { from: RunState.Running, to: RunState.Failed, trigger: RunTrigger.DiscardUncontained, description: 'A step was discarded and CancelBranch does not contain all of its downstream' },
  { from: RunState.Running, to: RunState.Failed, trigger: RunTrigger.RunDeadline, description: 'The runDeadline scanner stopped the still-running run' },
  { from: RunState.Running, to: RunState.Cancelled, trigger: RunTrigger.Cancel, description: 'client.cancel called' },
  { from: RunState.Failed, to: RunState.Running, trigger: RunTrigger.OperatorRetry, description: 'client.retry / retryAll reopens discarded nodes' },
  { from: RunState.Running, to: RunState.Paused, trigger: RunTrigger.Pause, description: 'run.pause called' },
  { from: RunState.Paused, to: RunState.Running, trigger: RunTrigger.Resume, description: 'run.resume called' },
  { from: RunState.Paused, to: RunState.Completed, trigger: RunTrigger.Complete, description: 'A step in progress at the pause completed the last node, or a contained discard left no non-terminal step' },
  { from: RunState.Paused, to: RunState.Failed, trigger: RunTrigger.DiscardUncontained, description: 'A step in progress at the pause was discarded and CancelBranch did not contain it' },
  { from: RunState.Paused, to: RunState.Cancelled, trigger: RunTrigger.Cancel, description: 'client.cancel called' },
]);

/** Run rows Cyclone adds where the reference's run table is silent. Each one is listed as a decision. */
// prettier-ignore
const RUN_DECISIONS = run([
  // The Child Nodes table says a retried child node reuses its child run and "a failed or cancelled
  // child run starts again", but the run table has no way out of cancelled. Only a child run takes
  // this row, when its parent's child node is retried; client.retry of a cancelled run is refused.
  { from: RunState.Cancelled, to: RunState.Running, trigger: RunTrigger.OperatorRetry, description: "A cancelled child run starts again when its parent's child node is retried", source: 'decision' },
]);

function deepFreeze<R extends object>(rows: readonly R[]): readonly R[] {
  for (const row of rows) {
    const nodeTypes = (row as { nodeTypes?: readonly NodeType[] }).nodeTypes;
    if (nodeTypes) Object.freeze(nodeTypes);
    Object.freeze(row);
  }
  return Object.freeze(rows);
}

/**
 * Every allowed step transition: the reference's step, child-node and fan-out tables, then Cyclone's
 * decision rows. Item tasks use the step rows plus the fan-out rows marked `item`.
 */
export const STEP_TRANSITIONS: readonly StepTransition[] = deepFreeze([
  ...STEP_TABLE,
  ...CHILD_TABLE,
  ...FAN_OUT_TABLE,
  ...STEP_DECISIONS,
  ...FORCED_MOVES,
]);

/** Every allowed run transition: the reference's Run State Transition Table, then Cyclone's decision rows. */
export const RUN_TRANSITIONS: readonly RunTransition[] = deepFreeze([
  ...RUN_TABLE,
  ...RUN_DECISIONS,
]);
