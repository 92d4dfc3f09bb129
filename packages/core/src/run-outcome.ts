/**
 * The run-state rule: given a run's nodes, what the run becomes and which nodes must be cancelled.
 * Pure, so the store can call it inside the transaction that recorded a step's end and apply the
 * answer in the same transaction.
 *
 * @packageDocumentation
 */
import { OnDepFailure } from './error-kind.js';
import { ValidationError } from './errors.js';
import { isTerminalRun, isTerminalStep, RunState, StepState } from './states.js';
import { RunTrigger, StepTrigger } from './triggers.js';

/**
 * What the rule needs to know about one node. A fan-out node's item tasks are not nodes: the fan-out
 * node's own state stands for them.
 */
export interface RunNodeView {
  /** The node name, unique in the run. */
  readonly name: string;
  /** The state of the node's step. */
  readonly state: StepState;
  /** The names of the node's upstream nodes. */
  readonly dependsOn: readonly string[];
  /** What the node does when one of its dependencies is discarded. */
  readonly onDepFailure: OnDepFailure;
}

/** The input of {@link decideRunOutcome}. */
export interface RunOutcomeInput {
  /** The run's current state. */
  readonly runState: RunState;
  /** Every node of the run. */
  readonly nodes: readonly RunNodeView[];
}

/** A node the store must cancel, and why (the trigger its step change records). */
export interface NodeCancellation {
  /** The node name. */
  readonly node: string;
  /** `fail_fast` when the run fails; `cancel_branch` when a contained discard cuts off the branch. */
  readonly trigger: typeof StepTrigger.FailFast | typeof StepTrigger.CancelBranch;
}

/** The answer of {@link decideRunOutcome}. */
export interface RunOutcome {
  /** What the run becomes once the cancellations are applied; the current state when nothing changes. */
  readonly state: RunState;
  /** The run trigger of the change, present only when `state` differs from the input's `runState`. */
  readonly trigger?: typeof RunTrigger.Complete | typeof RunTrigger.DiscardUncontained;
  /** The non-terminal nodes to cancel, in input order. */
  readonly cancel: readonly NodeCancellation[];
  /** The first (in input order) discarded node whose discard was not contained, when the run fails. */
  readonly failedBy?: string;
}

/** Maps each node to the nodes that depend on it directly. */
function dependentsOf(nodes: readonly RunNodeView[]): ReadonlyMap<string, readonly string[]> {
  const dependents = new Map<string, string[]>(nodes.map((n) => [n.name, []]));
  const problems: { path: string; message: string }[] = [];
  for (const node of nodes) {
    for (const dep of node.dependsOn) {
      const list = dependents.get(dep);
      if (list) list.push(node.name);
      else problems.push({ path: `nodes.${node.name}.dependsOn`, message: `unknown node ${dep}` });
    }
  }
  // A view with a dangling edge would silently change containment; refuse it instead.
  if (problems.length > 0) throw new ValidationError('run outcome input', problems);
  return dependents;
}

/** Every node reachable downstream of `start` (excluding `start`). */
function downstreamOf(
  start: string,
  dependents: ReadonlyMap<string, readonly string[]>,
): Set<string> {
  const seen = new Set<string>();
  const queue = [...(dependents.get(start) ?? [])];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...(dependents.get(next) ?? []));
  }
  return seen;
}

/**
 * Decides what a run becomes from the states of its nodes (reference: Run State Transition Table and
 * Per-Branch Failure Policy; api.md Decisions).
 *
 * - A discard is *contained* only when the discarded node has dependents and every node transitively
 *   downstream of it declares `OnDepFailure.CancelBranch`. Its non-terminal downstream nodes are
 *   cancelled with `cancel_branch`.
 * - A discarded leaf, or a `FailRun` node anywhere downstream, fails the run: every other non-terminal
 *   node is cancelled with `fail_fast`.
 * - The run is `completed` when, after the cancellations, every node is terminal and every discard
 *   was contained; `failed` when any discard is uncontained; otherwise it keeps its state (`running`
 *   stays `running`, `paused` stays `paused`). A terminal run is returned unchanged.
 *
 * Cancelled nodes count as terminal; an operator cancel only happens to a run that is cancelled as a
 * whole, so it never reaches this rule with a running run.
 *
 * @throws ValidationError when a node depends on a name that is not in `nodes`
 */
export function decideRunOutcome({ runState, nodes }: RunOutcomeInput): RunOutcome {
  if (isTerminalRun(runState)) return { state: runState, cancel: [] };

  const dependents = dependentsOf(nodes);
  const policy = new Map(nodes.map((n) => [n.name, n.onDepFailure]));
  const cutOff = new Set<string>();
  let failedBy: string | undefined;

  for (const node of nodes) {
    if (node.state !== StepState.Exhausted) continue;
    const downstream = downstreamOf(node.name, dependents);
    const contained =
      downstream.size > 0 &&
      [...downstream].every((name) => policy.get(name) === OnDepFailure.CancelBranch);
    if (!contained) {
      failedBy ??= node.name;
      continue;
    }
    for (const name of downstream) cutOff.add(name);
  }

  if (failedBy !== undefined) {
    const cancel = nodes
      .filter((n) => !isTerminalStep(n.state))
      .map((n) => ({ node: n.name, trigger: StepTrigger.FailFast }));
    return { state: RunState.Failed, trigger: RunTrigger.DiscardUncontained, cancel, failedBy };
  }

  const cancel = nodes
    .filter((n) => cutOff.has(n.name) && !isTerminalStep(n.state))
    .map((n) => ({ node: n.name, trigger: StepTrigger.CancelBranch }));
  const settled = nodes.every((n) => isTerminalStep(n.state) || cutOff.has(n.name));
  if (settled) return { state: RunState.Completed, trigger: RunTrigger.Complete, cancel };
  return { state: runState, cancel };
}
