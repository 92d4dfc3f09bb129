import { shortDuration } from './duration.js';
import { ErrorKind } from './error-kind.js';
import { ExplainReason, type NodeExplanation } from './node-explanation.js';
import type { NodeFacts, StepFacts } from './node-facts.js';
import { isTerminalRun, RunState, StepState } from './states.js';
import { StepLabel, stepLabel } from './step-labels.js';

/** The name an operator uses for a step: the node, or `node[index]` for an item task. */
export function stepName(step: Pick<StepFacts, 'node' | 'itemIndex'>): string {
  return step.itemIndex === null ? step.node : `${step.node}[${step.itemIndex}]`;
}

/** A time as ISO text with its distance from now (`2026-... (in 29s)`, `(3m ago)`). */
function at(date: Date, now: Date): string {
  const ms = date.getTime() - now.getTime();
  return `${date.toISOString()} (${ms >= 0 ? `in ${shortDuration(ms)}` : `${shortDuration(ms)} ago`})`;
}

function firstLine(text: string | null): string {
  const line = (text ?? '').split('\n')[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

function list(names: readonly string[], more = 0): string {
  const shown = names.join(', ');
  return more > 0 ? `${shown} and ${more} more` : shown;
}

type Explained = Omit<NodeExplanation, 'node' | 'state'>;

function terminal(step: StepFacts): Explained {
  switch (step.state) {
    case StepState.Completed:
      return step.timedOut
        ? {
            reason: ExplainReason.Terminal,
            label: StepLabel.TimedOut,
            message:
              'It completed with timedOut: its max wait lapsed before the signal arrived; nothing moves it again.',
          }
        : { reason: ExplainReason.Terminal, message: 'It completed; nothing moves it again.' };
    case StepState.Exhausted:
      return {
        reason: ExplainReason.Terminal,
        message: `It was discarded (${step.errorKind ?? 'error'}: ${firstLine(step.error) || 'no message'}) after ${step.attempts} of ${step.maxAttempts} attempts; only a retry reopens it.`,
      };
    default:
      return {
        reason: ExplainReason.Terminal,
        message:
          'It was cancelled; only a retry of the discard that cancelled it reopens it (a run cancel is final).',
      };
  }
}

/** The state a paused step returns to on resume, by its node type. */
function resumesTo(step: StepFacts): string {
  if (step.waitSignals !== null) return StepState.WaitingSignal;
  if (step.nodeType === 'wait_timer') return StepState.WaitingTimer;
  if (step.nodeType === 'child') return StepState.WaitingChild;
  return StepState.Available;
}

function paused(facts: NodeFacts): Explained {
  const { step } = facts;
  const since = facts.run.pausedAt ? ` since ${at(facts.run.pausedAt, facts.now)}` : '';
  if (step.state === StepState.Pending) {
    return {
      reason: ExplainReason.Paused,
      message: `The run is paused${since}: nothing is promoted until it is resumed.`,
    };
  }
  const keeps =
    step.waitSignals !== null || step.nodeType === 'wait_timer' || step.nodeType === 'child'
      ? ', with the time it had left'
      : '';
  return {
    reason: ExplainReason.Paused,
    message: `The run is paused${since}; resuming it returns the step to ${resumesTo(step)}${keeps}.`,
  };
}

function withLabel(label: StepLabel | undefined): { label?: string } {
  return label === undefined ? {} : { label };
}

function itemWaiting(facts: NodeFacts): Explained {
  const fan = facts.fanOut;
  const limit = fan?.maxParallel ?? null;
  const holders = (fan?.holding ?? []).map((i) => `${facts.step.node}[${i}]`);
  if (limit !== null && holders.length >= limit) {
    return {
      reason: ExplainReason.MaxParallel,
      waitingOn: holders,
      message: `The maxParallel limit (${limit}) of fan-out ${facts.step.node} is full: ${list(holders)} hold the places; it becomes available when one of them ends.`,
    };
  }
  return {
    reason: ExplainReason.Ready,
    message: `A place under the maxParallel limit of fan-out ${facts.step.node} is free; the engine makes it available when it next settles the run.`,
  };
}

function fanOutWaiting(facts: NodeFacts): Explained {
  const fan = facts.fanOut;
  if (!fan || fan.items === 0) {
    return {
      reason: ExplainReason.Ready,
      message:
        'Its dependencies completed; the engine expands it into item tasks when it next settles the run.',
    };
  }
  const names = fan.unfinished.map((i) => `${facts.step.node}[${i}]`);
  const held =
    fan.pending > 0 && fan.maxParallel !== null
      ? ` (${fan.pending} wait for a place under maxParallel ${fan.maxParallel})`
      : '';
  return {
    reason: ExplainReason.Dependencies,
    waitingOn: names,
    message: `It waits for its item tasks: ${fan.unfinishedCount} of ${fan.items} not completed${held}: ${list(names, fan.unfinishedCount - names.length)}.`,
  };
}

function pending(facts: NodeFacts): Explained {
  const { step } = facts;
  if (step.itemIndex !== null) return itemWaiting(facts);
  const open = facts.upstream.filter((u) => u.state !== StepState.Completed);
  if (open.length > 0) {
    return {
      reason: ExplainReason.Dependencies,
      waitingOn: open.map((u) => u.node),
      message: `It waits for upstream ${open.length === 1 ? 'node' : 'nodes'} ${list(open.map((u) => `${u.node} (${u.state})`))} to complete.`,
    };
  }
  if (step.nodeType === 'fan_out') return fanOutWaiting(facts);
  return {
    reason: ExplainReason.Ready,
    message:
      'Its dependencies completed; the engine promotes it when it next settles the run (the settle-pending scanner finishes a settlement a crash interrupted).',
  };
}

function available(facts: NodeFacts): Explained {
  const { step, now } = facts;
  const label = withLabel(stepLabel(step, now.getTime()));
  if (step.scheduledAt.getTime() > now.getTime()) {
    const until = step.scheduledAt;
    if (step.errorKind === ErrorKind.Retryable) {
      return {
        reason: ExplainReason.Backoff,
        ...label,
        until,
        message: `Attempt ${step.attempts} of ${step.maxAttempts} failed (${firstLine(step.error) || 'retryable'}); attempt ${step.attempts + 1} can be claimed at ${at(until, now)}.`,
      };
    }
    if (step.errorKind === ErrorKind.Transient) {
      return {
        reason: ExplainReason.Backoff,
        ...label,
        until,
        message: `Attempt ${step.attempts + 1} could not read its input (${firstLine(step.error) || 'transient'}); it is tried again, at the same attempt, at ${at(until, now)}.`,
      };
    }
    return {
      reason: ExplainReason.Scheduled,
      ...label,
      until,
      message:
        step.errorKind === ErrorKind.Snooze
          ? `Its handler snoozed it; it can be claimed at ${at(until, now)}.`
          : `It is scheduled for later; it can be claimed at ${at(until, now)}.`,
    };
  }
  const kind = step.kind ?? '(none)';
  if (facts.workers.serving.length === 0) {
    return {
      reason: ExplainReason.NoWorker,
      ...label,
      message:
        facts.workers.live === 0
          ? `No worker is live; start a worker with a handler for kind ${kind}.`
          : `None of the ${facts.workers.live} live workers handles kind ${kind}; start one with a handler for it (the scheduler discards the step once it waited past its unserved-kind grace).`,
    };
  }
  const held = heldByLimit(facts);
  if (held !== undefined) return held;
  const since = at(step.scheduledAt, now);
  const serving = list(facts.workers.serving.slice(0, 3), facts.workers.serving.length - 3);
  if (facts.fairShare) {
    const fair = facts.fairShare;
    const mine = fair.key === null ? 'the steps without a key' : `key ${JSON.stringify(fair.key)}`;
    const turn =
      fair.turn === null
        ? ''
        : `; the turn is at ${'keyless' in fair.turn ? 'the steps without a key' : `key ${JSON.stringify(fair.turn.key)}`} now`;
    return {
      reason: ExplainReason.Ready,
      ...label,
      message: `It can be claimed since ${since} and waits for its key's turn: kind ${kind} is under fair share, so its keys take turns and ${mine} is served in its turn${turn}; workers handling it: ${serving}.`,
    };
  }
  return {
    reason: ExplainReason.Ready,
    ...label,
    message:
      label.label === StepLabel.Late
        ? `It can be claimed since ${since} but no worker took it yet: the workers handling kind ${kind} (${serving}) are busy or not polling.`
        : `It can be claimed since ${since}; a worker handling kind ${kind} (${serving}) takes it at its next poll.`,
  };
}

/**
 * The explanation of a claimable step that its kind's flow limits hold back: the concurrency cap
 * when its places are taken (of the step's key under a per-key cap), else the rate limit when its
 * window is full; undefined when neither holds it.
 */
function heldByLimit(facts: NodeFacts): Explained | undefined {
  const { step, now } = facts;
  const kind = step.kind ?? '(none)';
  const concurrency = facts.limits?.concurrency;
  if (concurrency && concurrency.running >= concurrency.max) {
    const whose =
      concurrency.perKey && concurrency.key !== null
        ? `the concurrency key ${JSON.stringify(concurrency.key)} of kind ${kind}`
        : concurrency.perKey
          ? `the steps of kind ${kind} without a concurrency key`
          : `kind ${kind}`;
    return {
      reason: ExplainReason.ConcurrencyCap,
      label: StepLabel.AwaitingResource,
      message: `The concurrency cap of ${whose} (${concurrency.max}) is full: ${concurrency.running} of its steps run now; it can be claimed when one of them ends.`,
    };
  }
  const rate = facts.limits?.rate;
  if (rate && rate.starts >= rate.limit) {
    const whose =
      rate.perKey && rate.key !== null
        ? `the concurrency key ${JSON.stringify(rate.key)} of kind ${kind}`
        : `kind ${kind}`;
    return {
      reason: ExplainReason.RateLimit,
      label: StepLabel.AwaitingResource,
      ...(rate.until === null ? {} : { until: rate.until }),
      message: `The rate limit of ${whose} (${rate.limit} per ${rate.period}) is used up${rate.until === null ? '' : `; it can be claimed from ${at(rate.until, now)}`}.`,
    };
  }
  return undefined;
}

function running(facts: NodeFacts): Explained {
  const { step, now } = facts;
  const worker = step.claimedBy ?? 'unknown';
  const lease = step.leaseExpiresAt;
  const attempt = `Attempt ${step.attempts + 1} of ${step.maxAttempts} runs on worker ${worker}`;
  const message = !lease
    ? `${attempt}.`
    : lease.getTime() > now.getTime()
      ? `${attempt}; its lease runs until ${at(lease, now)} and is renewed while the handler runs.`
      : `${attempt}, but its lease expired at ${at(lease, now)}: the recovery sweep takes the step back.`;
  return {
    reason: ExplainReason.Running,
    ...withLabel(stepLabel(step, now.getTime())),
    worker,
    ...(lease ? { until: lease } : {}),
    message,
  };
}

function waitingSignal(facts: NodeFacts): Explained {
  const { step, now } = facts;
  const names = [...(step.waitSignals ?? [])];
  const quorum =
    step.waitN !== null && step.waitN > 1
      ? ` (${step.waitGathered} of ${step.waitN} gathered)`
      : '';
  const deadline = step.waitDeadlineAt;
  const lapse = !deadline
    ? ''
    : deadline.getTime() > now.getTime()
      ? `; its max wait lapses at ${at(deadline, now)}`
      : `; its max wait lapsed at ${at(deadline, now)} and the scheduler completes it with timedOut at its next pass`;
  return {
    reason: ExplainReason.Signal,
    waitingOn: names,
    ...(deadline ? { until: deadline } : {}),
    message: `It waits for signal ${names.join(' or ')}${quorum}; send it to the run${lapse}.`,
  };
}

function waitingTimer(facts: NodeFacts): Explained {
  const { step, now } = facts;
  const until = step.scheduledAt;
  return {
    reason: ExplainReason.Timer,
    until,
    message:
      until.getTime() > now.getTime()
        ? `Its timer fires at ${at(until, now)}.`
        : `Its timer was due at ${at(until, now)}; the scheduler fires it at its next pass (is a scheduler running?).`,
  };
}

function waitingChild(facts: NodeFacts): Explained {
  const { step, now } = facts;
  const deadline = step.waitDeadlineAt;
  const limit = deadline ? `; its max wait lapses at ${at(deadline, now)}` : '';
  const until = deadline ? { until: deadline } : {};
  const child = facts.child;
  if (!child) {
    return {
      reason: ExplainReason.Child,
      ...until,
      message: `Its child run has not been started yet; the engine starts it when it next settles the run${limit}.`,
    };
  }
  return {
    reason: ExplainReason.Child,
    waitingOn: [child.id],
    ...until,
    message: isTerminalRun(child.state)
      ? `Its child run ${child.id} ended ${child.state}; the engine ends this node when it next settles the run.`
      : `It waits for its child run ${child.id} (${child.state}) to end${limit}.`,
  };
}

/**
 * Why a step is in its state and what would move it, decided from the rows the engine acts on
 * (see {@link NodeFacts}); pure, so every reason is tested without a database. One reason is
 * given, the nearest: a paused run before anything it holds back, upstream nodes before the
 * step's own wait. Concurrency caps do not exist in this version, so `concurrency_cap` is never
 * returned.
 */
export function explainNode(facts: NodeFacts): NodeExplanation {
  const { step } = facts;
  const head = { node: stepName(step), state: step.state };
  let explained: Explained;
  if (
    step.state === StepState.Completed ||
    step.state === StepState.Exhausted ||
    step.state === StepState.Cancelled
  ) {
    explained = terminal(step);
  } else if (
    step.state === StepState.Paused ||
    (facts.run.state === RunState.Paused && step.state !== StepState.Running)
  ) {
    explained = paused(facts);
  } else {
    switch (step.state) {
      case StepState.Pending:
        explained = pending(facts);
        break;
      case StepState.Available:
        explained = available(facts);
        break;
      case StepState.Running:
        explained = running(facts);
        break;
      case StepState.WaitingSignal:
        explained = waitingSignal(facts);
        break;
      case StepState.WaitingTimer:
        explained = waitingTimer(facts);
        break;
      default:
        explained = waitingChild(facts);
    }
  }
  // In the contract's field order, so printed JSON reads the same everywhere.
  return {
    ...head,
    ...(explained.label === undefined ? {} : { label: explained.label }),
    reason: explained.reason,
    message: explained.message,
    ...(explained.waitingOn === undefined ? {} : { waitingOn: explained.waitingOn }),
    ...(explained.until === undefined ? {} : { until: explained.until }),
    ...(explained.worker === undefined ? {} : { worker: explained.worker }),
  };
}
