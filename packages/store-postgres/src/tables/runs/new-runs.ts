import {
  keyAtPath,
  DefaultMaxAttempts,
  insertedStepState,
  OnDepFailure,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { NewJobOptions, NewRun, NewRunOptions, NewStep } from '../../contract/new-run.js';
import { uuidv7 } from '../../db/ids.js';

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

/** What a run's steps take from the submission besides their nodes. */
interface StepFlow {
  /** The run input, parsed once when a node names a concurrency key path (else undefined). */
  readonly input: unknown;
  readonly concurrencyKey: string | null;
  readonly priority: number;
}

function stepOf(node: DefinitionNode, flow: StepFlow): NewStep {
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
    concurrencyKey: null,
    priority: 0,
  };
  // A handler's node names its key path and priority, or takes the submission's (decision 251).
  const handled =
    node.type === 'task' || node.type === 'fan_out'
      ? {
          concurrencyKey:
            node.concurrencyKey === undefined
              ? flow.concurrencyKey
              : keyAtPath(flow.input, node.concurrencyKey),
          priority: node.priority ?? flow.priority,
        }
      : {};
  switch (node.type) {
    case 'task':
      return {
        ...base,
        ...handled,
        kind: node.kind,
        maxAttempts: node.maxAttempts,
        timeoutMs: node.timeoutMs ?? null,
        backoff: node.backoff,
      };
    case 'fan_out':
      return {
        ...base,
        ...handled,
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
  const keyed = definition.nodes.some(
    (n) => 'concurrencyKey' in n && n.concurrencyKey !== undefined,
  );
  const flow: StepFlow = {
    input: keyed ? (JSON.parse(inputJson) as unknown) : undefined,
    concurrencyKey: options.concurrencyKey ?? null,
    priority: options.priority ?? 0,
  };
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
    steps: definition.nodes.map((node) => stepOf(node, flow)),
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
        concurrencyKey: options.concurrencyKey ?? null,
        priority: options.priority ?? 0,
      },
    ],
  };
}
