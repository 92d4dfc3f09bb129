import {
  cacheKeyOf,
  keyAtPath,
  DefaultMaxAttempts,
  DefaultMaxReclaims,
  insertedStepState,
  OnDepFailure,
  type WorkflowDefinition,
} from '@cyclone/core';
import type { NewJobOptions, NewRun, NewRunOptions, NewStep } from '../../contract/new-run.js';
import { stepIdsOf, uuidv7 } from '../../db/ids.js';

type DefinitionNode = WorkflowDefinition['nodes'][number];

// The state a node is inserted in depends only on its type and whether it has dependencies;
// checking it against the table once per combination keeps bulk submits cheap.
const insertedStates = new Map<string, string>();
function insertedState(
  nodeType: DefinitionNode['type'],
  hasDependencies: boolean,
  cached = false,
): string {
  const key = `${nodeType}:${hasDependencies}:${cached}`;
  let state = insertedStates.get(key);
  if (state === undefined) {
    state = insertedStepState({ nodeType, hasDependencies, cached });
    insertedStates.set(key, state);
  }
  return state;
}

/** What a run's steps take from the submission besides their nodes. */
interface StepFlow {
  /** The run input, parsed once when a node names a key path (else undefined). */
  readonly input: unknown;
  readonly concurrencyKey: string | null;
  readonly priority: number;
}

function stepOf(node: DefinitionNode, flow: StepFlow, id: string): NewStep {
  const hasDependencies = node.dependsOn.length > 0;
  const base = {
    id,
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
        ...cacheOf(node, hasDependencies, flow),
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

/**
 * A task node's cache columns at submit. A key path is read from the input now, and an input
 * without the field leaves the step uncached (decision 221); a hashed key needs the dependencies'
 * outputs, so it is computed when the node becomes ready. A cached step is inserted `pending`,
 * even without dependencies: settlement looks its key up before anything can claim it.
 */
function cacheOf(
  node: Extract<DefinitionNode, { type: 'task' }>,
  hasDependencies: boolean,
  flow: StepFlow,
): Partial<Pick<NewStep, 'cacheTtlMs' | 'cacheKey' | 'state'>> {
  if (node.cache === undefined) return {};
  const cacheKey =
    node.cache.key === undefined
      ? null
      : cacheKeyOf({ kind: node.kind, cache: node.cache, input: flow.input, deps: {} });
  if (node.cache.key !== undefined && cacheKey === null) return {};
  return {
    cacheTtlMs: node.cache.ttlMs,
    cacheKey,
    state: insertedState('task', hasDependencies, true),
  };
}

/** Builds the rows of a workflow run: one step per node, in the state submit gives it. */
export function runOfDefinition(
  definition: WorkflowDefinition,
  inputJson: string,
  options: NewRunOptions = {},
): NewRun {
  const keyed = definition.nodes.some(
    (n) =>
      ('concurrencyKey' in n && n.concurrencyKey !== undefined) ||
      (n.type === 'task' && n.cache?.key !== undefined),
  );
  const flow: StepFlow = {
    input: keyed ? (JSON.parse(inputJson) as unknown) : undefined,
    concurrencyKey: options.concurrencyKey ?? null,
    priority: options.priority ?? 0,
  };
  // Each step id carries the run's millisecond, so the steps live in their run's period
  // (decision 348), and increases in node order, as the order of `created_at, id` needs.
  const id = uuidv7();
  const nextStepId = stepIdsOf(id);
  return {
    id,
    workflow: definition.name,
    definition,
    inputJson,
    idempotencyKey: options.idempotencyKey ?? null,
    deadlineMs: options.deadlineMs ?? null,
    maxReclaims: options.maxReclaims ?? DefaultMaxReclaims,
    parentRunId: options.parentRunId ?? null,
    parentStepId: options.parentStepId ?? null,
    traceContext: options.traceContext ?? null,
    steps: definition.nodes.map((node) => stepOf(node, flow, nextStepId())),
  };
}

/**
 * Builds the rows of a standalone job: a run of one task step, named after its kind, with the
 * run's id.
 */
export function runOfJob(kind: string, argsJson: string, options: NewJobOptions = {}): NewRun {
  // The step shares the run's id, which keeps it out of the steps' run index (decision 302).
  const id = uuidv7();
  return {
    id,
    workflow: kind,
    definition: null,
    inputJson: argsJson,
    idempotencyKey: options.idempotencyKey ?? null,
    deadlineMs: options.deadlineMs ?? null,
    maxReclaims: options.maxReclaims ?? DefaultMaxReclaims,
    parentRunId: options.parentRunId ?? null,
    parentStepId: options.parentStepId ?? null,
    traceContext: options.traceContext ?? null,
    steps: [
      {
        id,
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
