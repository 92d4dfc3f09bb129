/**
 * The rule function over the transition tables, and the helpers the store builds its guarded writes
 * from. Every write path asks the same table: the in-memory check (`proposeStep` / `proposeRun`) and
 * the SQL (`UPDATE ... SET state = $to WHERE state = ANY($from)` from a {@link StepChange} /
 * {@link RunChange}), so the database never holds a transition the table does not allow.
 *
 * @packageDocumentation
 */
import { TransitionRejectedError } from './errors.js';
import {
  RUN_STATES,
  STEP_STATES,
  isTerminalRun,
  isTerminalStep,
  type RunState,
  StepState,
} from './states.js';
import {
  NodeType,
  RUN_TRANSITIONS,
  STEP_TRANSITIONS,
  type RunTransition,
  type StepTransition,
  type TransitionRow,
} from './transitions.js';
import { StepTrigger, isOperatorRetryTrigger, type RunTrigger } from './triggers.js';

/**
 * Why a proposed transition was refused, in order of evaluation:
 * - `terminal`: the entity is terminal and the move is not an operator retry row;
 * - `same-state`: the proposed state is the current one;
 * - `invalid-entry`: no row leads from the current state to the proposed one (for this node type);
 * - `wrong-trigger`: such a row exists, but under another trigger;
 * - `duplicate`: an operator's move of a node repeats the node's last one within a second
 *   (`proposeNodeMove`).
 */
export type RejectionReason =
  'terminal' | 'same-state' | 'invalid-entry' | 'wrong-trigger' | 'duplicate';

/** The answer of the rule function: the accepted row, or the reason for a refusal. */
export type Proposal<Row> =
  | { readonly accepted: true; readonly row: Row }
  | { readonly accepted: false; readonly reason: RejectionReason; readonly message: string };

/** The answer of {@link proposeStep}. */
export type StepProposal = Proposal<StepTransition>;
/** The answer of {@link proposeRun}. */
export type RunProposal = Proposal<RunTransition>;

function label(state: string | null): string {
  return state ?? '(inserted)';
}

/**
 * The shared evaluation, mirroring the sibling engine's `propose`: terminal first (only operator
 * retry rows leave a terminal state), then same-state, then whether the pair exists at all, then
 * whether it exists under this trigger.
 */
function propose<S extends string, T extends string>(
  entity: 'step' | 'run',
  nodeType: NodeType | undefined,
  rows: readonly TransitionRow<S, T>[],
  isTerminal: (state: S) => boolean,
  from: S | null,
  to: S,
  trigger: T,
): Proposal<TransitionRow<S, T>> {
  const pair = rows.filter((row) => row.from === from && row.to === to);
  const match = pair.find((row) => row.trigger === trigger);
  const subject = nodeType === undefined ? entity : `${entity} (${nodeType})`;
  const what = `${subject} ${label(from)} -> ${to} by ${trigger}`;
  if (from !== null && isTerminal(from)) {
    if (match && isOperatorRetryTrigger(match.trigger)) {
      return { accepted: true, row: match };
    }
    return {
      accepted: false,
      reason: 'terminal',
      message: `${what}: ${from} is terminal; only an operator retry can move a terminal ${entity}`,
    };
  }
  if (from === to) {
    return {
      accepted: false,
      reason: 'same-state',
      message: `${what}: the ${entity} is already ${to}`,
    };
  }
  if (match) return { accepted: true, row: match };
  if (pair.length === 0) {
    return {
      accepted: false,
      reason: 'invalid-entry',
      message: `${what}: no transition leads from ${label(from)} to ${to}`,
    };
  }
  const triggers = [...new Set(pair.map((row) => row.trigger))].join(', ');
  return {
    accepted: false,
    reason: 'wrong-trigger',
    message: `${what}: ${label(from)} -> ${to} is reached only by ${triggers}`,
  };
}

function appliesTo(row: StepTransition, nodeType: NodeType | undefined): boolean {
  return nodeType === undefined || row.nodeTypes === undefined || row.nodeTypes.includes(nodeType);
}

function stepRows(nodeType: NodeType | undefined): readonly StepTransition[] {
  return nodeType === undefined
    ? STEP_TRANSITIONS
    : STEP_TRANSITIONS.filter((r) => appliesTo(r, nodeType));
}

/**
 * Accepts or rejects a proposed step transition against {@link STEP_TRANSITIONS}.
 *
 * @param from - the current state, or `null` when the step is being inserted
 * @param nodeType - when given, only rows for this node type count (a child node is never claimed)
 *
 * @example
 * ```ts
 * const p = proposeStep('running', 'available', StepTrigger.Reclaim, 'task');
 * if (!p.accepted) log.warn(p.message);
 * ```
 */
export function proposeStep(
  from: StepState | null,
  to: StepState,
  trigger: StepTrigger,
  nodeType?: NodeType,
): StepProposal {
  return propose('step', nodeType, stepRows(nodeType), isTerminalStep, from, to, trigger);
}

/** Accepts or rejects a proposed run transition against {@link RUN_TRANSITIONS}; `from = null` is insertion. */
export function proposeRun(from: RunState | null, to: RunState, trigger: RunTrigger): RunProposal {
  return propose('run', undefined, RUN_TRANSITIONS, isTerminalRun, from, to, trigger);
}

/**
 * Like {@link proposeStep}, but returns the accepted row or throws.
 *
 * @throws TransitionRejectedError with `reason` set to the {@link RejectionReason}
 */
export function assertStepTransition(
  from: StepState | null,
  to: StepState,
  trigger: StepTrigger,
  nodeType?: NodeType,
): StepTransition {
  const proposal = proposeStep(from, to, trigger, nodeType);
  if (proposal.accepted) return proposal.row;
  throw new TransitionRejectedError('step', from, to, proposal.reason, {
    cause: new Error(proposal.message),
  });
}

/**
 * Like {@link proposeRun}, but returns the accepted row or throws.
 *
 * @throws TransitionRejectedError with `reason` set to the {@link RejectionReason}
 */
export function assertRunTransition(
  from: RunState | null,
  to: RunState,
  trigger: RunTrigger,
): RunTransition {
  const proposal = proposeRun(from, to, trigger);
  if (proposal.accepted) return proposal.row;
  throw new TransitionRejectedError('run', from, to, proposal.reason, {
    cause: new Error(proposal.message),
  });
}

function fromStates<S extends string, T extends string>(
  rows: readonly TransitionRow<S, T>[],
  order: readonly S[],
  trigger: T,
  to: S,
): readonly S[] {
  const from = new Set<S | null>(
    rows.filter((r) => r.trigger === trigger && r.to === to).map((r) => r.from),
  );
  // Declaration order, not row order, so the generated SQL parameter is stable and easy to read.
  return Object.freeze(order.filter((state) => from.has(state)));
}

/**
 * The states a step may be in for `trigger` to move it to `to`: the `ANY($allowed)` of the store's
 * guarded `UPDATE`. Insertion (`from = null`) is never included. Empty when no row matches.
 */
export function allowedStepFrom(
  trigger: StepTrigger,
  to: StepState,
  nodeType?: NodeType,
): readonly StepState[] {
  return fromStates(stepRows(nodeType), STEP_STATES, trigger, to);
}

/** The states a run may be in for `trigger` to move it to `to` (insertion excluded); empty when none. */
export function allowedRunFrom(trigger: RunTrigger, to: RunState): readonly RunState[] {
  return fromStates(RUN_TRANSITIONS, RUN_STATES, trigger, to);
}

/**
 * A state change the store can apply as `UPDATE ... SET state = to WHERE state = ANY(from)`. Built
 * only by {@link stepChange} / {@link runChange}, which refuse a change the table does not have.
 */
export interface StateChange<E extends 'step' | 'run', S extends string, T extends string> {
  /** Which table the change is for. */
  readonly entity: E;
  /** Why the change happens (also what the event records). */
  readonly trigger: T;
  /** The state written. */
  readonly to: S;
  /** The states the row must be in for the change to apply; never empty. */
  readonly from: readonly S[];
  /** The node type the change was narrowed to, if any. */
  readonly nodeType?: NodeType;
}

/** A step change; see {@link stepChange}. */
export type StepChange = StateChange<'step', StepState, StepTrigger>;
/** A run change; see {@link runChange}. */
export type RunChange = StateChange<'run', RunState, RunTrigger>;

function noRow(entity: 'step' | 'run', trigger: string, to: string, nodeType?: NodeType): never {
  const forType = nodeType === undefined ? '' : ` for a ${nodeType} node`;
  throw new TransitionRejectedError(
    entity,
    '(any)',
    to,
    `no ${entity} transition reaches ${to} by ${trigger}${forType}`,
  );
}

/**
 * Builds the change `trigger` makes to a step, with its allowed from-states. Call it at module load
 * (`const claim = stepChange(StepTrigger.Claim, StepState.Running)`) so an illegal change fails at
 * import, not in production.
 *
 * @throws TransitionRejectedError when no row moves an existing step to `to` by `trigger`
 */
export function stepChange(trigger: StepTrigger, to: StepState, nodeType?: NodeType): StepChange {
  const from = allowedStepFrom(trigger, to, nodeType);
  if (from.length === 0) noRow('step', trigger, to, nodeType);
  return Object.freeze({
    entity: 'step',
    trigger,
    to,
    from,
    ...(nodeType === undefined ? {} : { nodeType }),
  });
}

/**
 * Builds the change `trigger` makes to a run, with its allowed from-states.
 *
 * @throws TransitionRejectedError when no row moves an existing run to `to` by `trigger`
 */
export function runChange(trigger: RunTrigger, to: RunState): RunChange {
  const from = allowedRunFrom(trigger, to);
  if (from.length === 0) noRow('run', trigger, to);
  return Object.freeze({ entity: 'run', trigger, to, from });
}

/** What the store needs to know to insert a node's step at submit. */
export interface SubmittedStep {
  /** The node's type; item tasks are not submitted (see {@link insertedItemState}). */
  readonly nodeType: Exclude<NodeType, 'item'>;
  /** Whether the node has upstream dependencies. */
  readonly hasDependencies: boolean;
  /**
   * Whether the node is a task with a result cache: it is inserted `pending` even without
   * dependencies, so that settlement looks its key up before anything can claim it.
   */
  readonly cached?: boolean;
}

// The state promotion would give each node type; a node with no dependencies is inserted in it. A
// fan-out node stays pending until it completes: its item tasks do the work.
const READY_STATE: Readonly<Record<Exclude<NodeType, 'item'>, StepState>> = {
  task: StepState.Available,
  fan_out: StepState.Pending,
  child: StepState.WaitingChild,
  wait_signal: StepState.WaitingSignal,
  wait_any: StepState.WaitingSignal,
  wait_n: StepState.WaitingSignal,
  wait_timer: StepState.WaitingTimer,
};

/**
 * The state a node's step is inserted in by `submit`: `pending` when it has dependencies (and always
 * for a fan-out node, which stays pending until it completes); otherwise straight into the state its
 * promotion would give (`available`, a wait state, or `waiting_child`).
 */
export function insertedStepState({
  nodeType,
  hasDependencies,
  cached = false,
}: SubmittedStep): StepState {
  const state = hasDependencies || cached ? StepState.Pending : READY_STATE[nodeType];
  // The table has the last word: a helper that disagreed with it would be a bug, caught here.
  assertStepTransition(null, state, StepTrigger.Submit, nodeType);
  return state;
}

/** Where an item task sits when its fan-out node expands. */
export interface ExpandedItem {
  /** Whether the item is within the node's `maxParallel` limit. */
  readonly withinLimit: boolean;
  /** Whether the run is paused at the expansion. */
  readonly runPaused: boolean;
}

/**
 * The state an item task is inserted in by `fan_out_expand`: `available` within the `maxParallel`
 * limit, `paused` within the limit of a paused run, `pending` beyond the limit.
 */
export function insertedItemState({ withinLimit, runPaused }: ExpandedItem): StepState {
  const state = !withinLimit
    ? StepState.Pending
    : runPaused
      ? StepState.Paused
      : StepState.Available;
  assertStepTransition(null, state, StepTrigger.FanOutExpand, NodeType.Item);
  return state;
}
