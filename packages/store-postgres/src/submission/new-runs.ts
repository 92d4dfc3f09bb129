import {
  DefaultMaxAttempts,
  insertedStepState,
  OnDepFailure,
  type BackoffPolicy,
  type WorkflowDefinition,
} from '@cyclone/core';
import { uuidv7 } from '../ids.js';

/** A step row to insert at submit. */
export interface NewStep {
  readonly id: string;
  readonly node: string;
  readonly nodeType: string;
  readonly kind: string | null;
  readonly state: string;
  readonly dependsOn: readonly string[];
  readonly onDepFailure: string;
  readonly maxAttempts: number;
  readonly timeoutMs: number | null;
  readonly backoff: BackoffPolicy | null;
  readonly delayMs: number | null;
  /** An absolute time to become claimable at (wins over `delayMs`); kept as given. */
  readonly runAt?: Date | null;
  readonly waitSignals: readonly string[] | null;
  readonly waitN: number | null;
  readonly maxWaitMs: number | null;
  readonly waitForMs: number | null;
  readonly maxParallel: number | null;
}

/** A run to insert at submit, with all of its steps. */
export interface NewRun {
  readonly id: string;
  readonly workflow: string;
  /** The definition (null for a standalone job), stored once per hash. */
  readonly definition: WorkflowDefinition | null;
  /** The run input, already encoded and validated as JSON text. */
  readonly inputJson: string;
  readonly idempotencyKey: string | null;
  readonly deadlineMs: number | null;
  readonly maxReclaims: number | null;
  readonly parentRunId: string | null;
  readonly parentStepId: string | null;
  /** The submitter's W3C trace context (`traceparent`, `tracestate`), or null. */
  readonly traceContext?: Readonly<Record<string, string>> | null;
  readonly steps: readonly NewStep[];
}

/** Run-level options of a submission. */
export interface NewRunOptions {
  readonly idempotencyKey?: string | null;
  readonly deadlineMs?: number | null;
  readonly maxReclaims?: number | null;
  readonly parentRunId?: string | null;
  readonly parentStepId?: string | null;
  readonly traceContext?: Readonly<Record<string, string>> | null;
}

/** Options of a standalone job. */
export interface NewJobOptions extends NewRunOptions {
  readonly maxAttempts?: number;
  readonly timeoutMs?: number | null;
  readonly delayMs?: number | null;
  /** Claimable from this absolute time (the caller's Date is stored as is). */
  readonly runAt?: Date | null;
  readonly backoff?: BackoffPolicy | null;
}

type DefinitionNode = WorkflowDefinition['nodes'][number];

// The state a node is inserted in depends only on its type and whether it has dependencies;
// checking it against the table once per combination keeps bulk submits cheap.
const insertedStates = new Map<string, string>();
function insertedState(nodeType: DefinitionNode['type'], hasDependencies: boolean): string {
  const key = `${nodeType}:${hasDependencies}`;
  let state = insertedStates.get(key);
  if (state === undefined) {
    state = insertedStepState({ nodeType, hasDependencies });
    insertedStates.set(key, state);
  }
  return state;
}

function stepOf(node: DefinitionNode): NewStep {
  const hasDependencies = node.dependsOn.length > 0;
  const base = {
    id: uuidv7(),
    node: node.name,
    nodeType: node.type,
    state: insertedState(node.type, hasDependencies),
    dependsOn: node.dependsOn,
    onDepFailure: node.onDepFailure,
    kind: null,
    maxAttempts: 1,
    timeoutMs: null,
    backoff: null,
    delayMs: null,
    waitSignals: null,
    waitN: null,
    maxWaitMs: null,
    waitForMs: null,
    maxParallel: null,
  };
  switch (node.type) {
    case 'task':
      return {
        ...base,
        kind: node.kind,
        maxAttempts: node.maxAttempts,
        timeoutMs: node.timeoutMs ?? null,
        backoff: node.backoff,
      };
    case 'fan_out':
      return {
        ...base,
        kind: node.kind,
        maxAttempts: node.maxAttempts,
        timeoutMs: node.timeoutMs ?? null,
        backoff: node.backoff,
        maxParallel: node.maxParallel ?? null,
      };
    case 'wait_signal':
      return { ...base, waitSignals: [node.signal], waitN: 1, maxWaitMs: node.maxWaitMs ?? null };
    case 'wait_any':
      return { ...base, waitSignals: node.signals, waitN: 1, maxWaitMs: node.maxWaitMs ?? null };
    case 'wait_n':
      return {
        ...base,
        waitSignals: [node.signal],
        waitN: node.n,
        maxWaitMs: node.maxWaitMs ?? null,
      };
    case 'wait_timer':
      return {
        ...base,
        waitForMs: node.waitForMs,
        delayMs: hasDependencies ? null : node.waitForMs,
      };
    case 'child':
      return { ...base, maxWaitMs: node.maxWaitMs ?? null };
  }
}

/** Builds the rows of a workflow run: one step per node, in the state submit gives it. */
export function runOfDefinition(
  definition: WorkflowDefinition,
  inputJson: string,
  options: NewRunOptions = {},
): NewRun {
  return {
    id: uuidv7(),
    workflow: definition.name,
    definition,
    inputJson,
    idempotencyKey: options.idempotencyKey ?? null,
    deadlineMs: options.deadlineMs ?? null,
    maxReclaims: options.maxReclaims ?? null,
    parentRunId: options.parentRunId ?? null,
    parentStepId: options.parentStepId ?? null,
    traceContext: options.traceContext ?? null,
    steps: definition.nodes.map(stepOf),
  };
}

/** Builds the rows of a standalone job: a run of one task step, named after its kind. */
export function runOfJob(kind: string, argsJson: string, options: NewJobOptions = {}): NewRun {
  return {
    id: uuidv7(),
    workflow: kind,
    definition: null,
    inputJson: argsJson,
    idempotencyKey: options.idempotencyKey ?? null,
    deadlineMs: options.deadlineMs ?? null,
    maxReclaims: options.maxReclaims ?? null,
    parentRunId: options.parentRunId ?? null,
    parentStepId: options.parentStepId ?? null,
    traceContext: options.traceContext ?? null,
    steps: [
      {
        id: uuidv7(),
        node: kind,
        nodeType: 'task',
        kind,
        state: insertedState('task', false),
        dependsOn: [],
        onDepFailure: OnDepFailure.FailRun,
        maxAttempts: options.maxAttempts ?? DefaultMaxAttempts,
        timeoutMs: options.timeoutMs ?? null,
        backoff: options.backoff ?? null,
        delayMs: options.delayMs ?? null,
        runAt: options.runAt ?? null,
        waitSignals: null,
        waitN: null,
        maxWaitMs: null,
        waitForMs: null,
        maxParallel: null,
      },
    ],
  };
}
