/**
 * An operator's move of one node by hand (`client.forceStep`, `POST /api/runs/:id/nodes/:node/transition`,
 * `cyclone force`): the request's check and the rule that accepts or refuses it. Pure; the store
 * reads the facts under the run's lock and applies the accepted row of core's table.
 *
 * @packageDocumentation
 */
import { ValidationError, type ValidationIssue } from './errors.js';
import { encodePayload } from './json-payload.js';
import { OutputBytes } from './limits.js';
import type { RejectionReason } from './propose.js';
import { proposeStep } from './propose.js';
import { isTerminalRun, StepState, type RunState } from './states.js';
import { textValueIssue } from './text-value.js';
import { STEP_TRANSITIONS, type NodeType, type StepTransition } from './transitions.js';
import { StepTrigger } from './triggers.js';

/** Where an operator may move a node: one of the terminal step states. */
export type NodeMoveTarget =
  typeof StepState.Completed | typeof StepState.Exhausted | typeof StepState.Cancelled;

/** The terminal states a node can be moved to, in the order messages list them. */
export const NODE_MOVE_TARGETS: readonly NodeMoveTarget[] = Object.freeze([
  StepState.Completed,
  StepState.Exhausted,
  StepState.Cancelled,
]);

/** Most characters of an operator's reason. */
export const MaxMoveReasonLength = 1000;

/** The same move proposed again within this many milliseconds is a `duplicate`. */
export const DuplicateMoveWindowMs = 1000;

/** What `client.forceStep` takes. */
export interface ForceStepOptions {
  /** The state to move the node to: `completed`, `discarded` or `cancelled`. */
  readonly to: NodeMoveTarget;
  /** The node's output (`to: 'completed'` only): what dependents read from `ctx.deps`. @defaultValue null */
  readonly output?: unknown;
  /** Why: recorded on the move's event (and as the error of a forced discard). Not empty. */
  readonly reason: string;
  /**
   * Apply the move even where the transition table does not make it by itself. Without it, only a
   * move the engine could make (a running task to completed, a waiting node to cancelled, ...) is
   * accepted. `client.forceStep` always forces. @defaultValue true for `forceStep`
   */
  readonly force?: boolean;
}

/** A checked move request, its output encoded as JSON text. */
export interface NodeMoveRequest {
  readonly to: NodeMoveTarget;
  /** The output as JSON text (`null` for a move that is not a completion). */
  readonly outputJson: string | null;
  readonly reason: string;
  readonly force: boolean;
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : (JSON.stringify(value) ?? typeof value);
}

/**
 * Checks a move request at the boundary, naming each bad field: `to` one of the three terminal
 * states, `reason` a non-empty text, `output` only for a completion, JSON within `OutputBytes`.
 *
 * @throws ValidationError naming every bad field; nothing is written
 */
export function parseNodeMove(subject: string, request: ForceStepOptions): NodeMoveRequest {
  const issues: ValidationIssue[] = [];
  const raw = (request ?? {}) as Partial<ForceStepOptions>;
  const to = raw.to;
  if (!NODE_MOVE_TARGETS.includes(to as NodeMoveTarget)) {
    issues.push({
      path: 'to',
      message: `expected one of ${NODE_MOVE_TARGETS.join(', ')}, got ${describe(to)}`,
    });
  }
  const reasonIssue =
    typeof raw.reason === 'string' && raw.reason.trim() === ''
      ? 'is blank, expected a reason an operator can read'
      : textValueIssue(raw.reason, { maxLength: MaxMoveReasonLength }, 'a reason');
  if (reasonIssue !== undefined) issues.push({ path: 'reason', message: reasonIssue });
  if (raw.force !== undefined && typeof raw.force !== 'boolean') {
    issues.push({ path: 'force', message: `expected a boolean, got ${describe(raw.force)}` });
  }
  let outputJson: string | null = null;
  if (raw.output !== undefined && to !== StepState.Completed) {
    issues.push({
      path: 'output',
      message: `only a move to ${StepState.Completed} takes an output, got one with to ${describe(to)}`,
    });
  } else if (to === StepState.Completed) {
    try {
      outputJson = encodePayload(raw.output === undefined ? null : raw.output, {
        maxBytes: OutputBytes,
        subject,
        path: 'output',
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      issues.push(...error.issues);
    }
  }
  if (issues.length > 0) throw new ValidationError(subject, issues);
  return {
    to: to as NodeMoveTarget,
    outputJson,
    reason: raw.reason as string,
    force: raw.force ?? true,
  };
}

/** The last operator move of the node, as its event recorded it. */
export interface LastNodeMove {
  readonly to: string;
  readonly at: Date;
}

/** What {@link proposeNodeMove} decides on, read under the run's lock. */
export interface NodeMoveFacts {
  readonly runState: RunState;
  /** The node's current state. */
  readonly from: StepState;
  readonly to: NodeMoveTarget;
  readonly nodeType: NodeType;
  readonly force: boolean;
  /** The node's last operator move, if any. */
  readonly lastMove: LastNodeMove | null;
  /** The database's clock. */
  readonly now: Date;
}

/** The answer of {@link proposeNodeMove}: the row to apply, or the reason for a refusal. */
export type NodeMoveProposal =
  | { readonly accepted: true; readonly row: StepTransition }
  | { readonly accepted: false; readonly reason: RejectionReason; readonly message: string };

/**
 * The rule for an operator's move of one node, in order of evaluation:
 * 1. the same move (same `to`) within one second of the node's last one: `duplicate` (a double
 *    click or a retried request does not act twice);
 * 2. a terminal run: `terminal`;
 * 3. the `force` row of core's table from the node's state (a terminal node: `terminal`; no row for
 *    this node type: `invalid-entry`);
 * 4. without `force`: only a move the table makes by itself (some other trigger leads from the
 *    node's state to `to` for its type), otherwise `invalid-entry`.
 *
 * The accepted row is always the `force` row: the move is recorded as the operator's, with
 * `forced` telling whether the table would have made it.
 */
export function proposeNodeMove(facts: NodeMoveFacts): NodeMoveProposal {
  const { from, to, nodeType, lastMove, now } = facts;
  const what = `${nodeType} node ${from} -> ${to}`;
  const sinceLast = lastMove === null ? Infinity : now.getTime() - lastMove.at.getTime();
  if (lastMove !== null && lastMove.to === to && sinceLast < DuplicateMoveWindowMs) {
    return {
      accepted: false,
      reason: 'duplicate',
      message: `${what}: the same move was made ${Math.max(0, sinceLast)} ms ago`,
    };
  }
  if (isTerminalRun(facts.runState)) {
    return {
      accepted: false,
      reason: 'terminal',
      message: `${what}: the run is ${facts.runState}`,
    };
  }
  const forced = proposeStep(from, to, StepTrigger.Force, nodeType);
  // No force row for this node type is an invalid entry, whatever other triggers lead there.
  if (!forced.accepted && forced.reason === 'wrong-trigger') {
    return {
      accepted: false,
      reason: 'invalid-entry',
      message: `${what}: no operator move leads there for a ${nodeType} (an item task moves with its fan-out node)`,
    };
  }
  if (!forced.accepted) return forced;
  if (facts.force) return forced;
  // A cache hit is not a move an operator can stand in for: it completes a task with an output its
  // kind's handler produced, where an operator's output is the operator's own.
  const byItself = STEP_TRANSITIONS.some(
    (r) =>
      r.from === from &&
      r.to === to &&
      r.trigger !== StepTrigger.Force &&
      r.trigger !== StepTrigger.CacheHit &&
      (r.nodeTypes === undefined || r.nodeTypes.includes(nodeType)),
  );
  if (byItself) return forced;
  return {
    accepted: false,
    reason: 'invalid-entry',
    message: `${what}: the transition table makes no such move by itself; pass force to apply it`,
  };
}

/**
 * The nodes downstream of `start` (not `start` itself), by their `dependsOn`: the branch a forced
 * cancel cancels.
 */
export function nodesDownstream(
  nodes: readonly { readonly name: string; readonly dependsOn: readonly string[] }[],
  start: string,
): Set<string> {
  const seen = new Set<string>();
  let frontier = [start];
  while (frontier.length > 0) {
    const next = nodes
      .filter((n) => !seen.has(n.name) && n.dependsOn.some((d) => frontier.includes(d)))
      .map((n) => n.name);
    for (const name of next) seen.add(name);
    frontier = next;
  }
  seen.delete(start);
  return seen;
}
