import {
  OutputBytes,
  toMilliseconds,
  ValidationError,
  type JobDeclaration,
  type ValidationIssue,
  type WorkflowDefinition,
} from '@cyclone/core';
import { buildHandlerTable, outputCheckedJobs, outputCheckedWorkflows } from './handler-table.js';
import type { WorkerOptions } from './options.js';
import type { Handler } from './step-context.js';

/** A worker's options, validated, with every default applied. */
export interface WorkerConfig {
  readonly handlers: ReadonlyMap<string, Handler>;
  readonly kinds: readonly string[];
  readonly concurrency: number;
  readonly prefetch: number | undefined;
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly pollMs: number;
  readonly maxOutputBytes: number;
  readonly completionBatchSize: number;
  /** How long an outcome write is retried through transient database errors: half the lease. */
  readonly writeRetryMs: number;
  readonly logErrorMessages: boolean;
  /** The stop timeout of signal handling, in milliseconds; undefined when signals are not handled. */
  readonly signalStopMs: number | undefined;
  readonly random: () => number;
  /** Definitions whose nodes declare output schemas, by workflow name: each output is checked. */
  readonly outputChecks: ReadonlyMap<string, WorkflowDefinition>;
  /** Job declarations whose output schema checks something, by kind: each job's output is checked. */
  readonly jobOutputChecks: ReadonlyMap<string, JobDeclaration>;
  /** The workflows registered on the worker, stored at start so any process can start them as child runs. */
  readonly workflows: readonly WorkflowDefinition[];
}

/**
 * Validates a worker's options and applies the defaults.
 *
 * @throws ValidationError naming every bad option by path, with what was expected
 */
export function resolveWorkerConfig(options: WorkerOptions): WorkerConfig {
  const problems: ValidationIssue[] = [];
  if (!options?.pool && typeof options?.connectionString !== 'string') {
    problems.push({
      path: 'connectionString',
      message: 'expected a connection string or a pg Pool (`pool`)',
    });
  }
  const table = buildHandlerTable(options?.handlers, problems);
  const concurrency = options?.concurrency ?? 10;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    problems.push({
      path: 'concurrency',
      message: `expected a whole number >= 1, got ${concurrency}`,
    });
  }
  for (const def of options?.workflows ?? []) {
    for (const node of def.nodes) {
      if ((node.type === 'task' || node.type === 'fan_out') && !table.handlers.has(node.kind)) {
        problems.push({
          path: `workflows.${def.name}.nodes.${node.name}`,
          message: `needs a handler of kind "${node.kind}"; register it in handlers`,
        });
      }
    }
  }
  const completionBatchSize = options?.completionBatchSize ?? 500;
  if (!Number.isInteger(completionBatchSize) || completionBatchSize < 1) {
    problems.push({
      path: 'completionBatchSize',
      message: `expected a whole number >= 1, got ${completionBatchSize}`,
    });
  }
  const handleSignals = options?.handleSignals ?? false;
  if (typeof handleSignals !== 'boolean' && (typeof handleSignals !== 'object' || !handleSignals)) {
    problems.push({
      path: 'handleSignals',
      message: `expected a boolean or { timeout }, got ${typeof handleSignals}`,
    });
  }
  if (problems.length > 0) throw new ValidationError('worker options', problems);

  const leaseMs = toMilliseconds(options.leaseDuration ?? '30s', 'leaseDuration');
  return {
    handlers: table.handlers,
    kinds: [...table.handlers.keys()],
    outputChecks: outputCheckedWorkflows(options.workflows ?? [], table.definitions),
    jobOutputChecks: outputCheckedJobs(table.jobs),
    concurrency,
    prefetch: options.prefetch,
    leaseMs,
    heartbeatMs: options.heartbeatInterval
      ? toMilliseconds(options.heartbeatInterval, 'heartbeatInterval')
      : Math.max(50, Math.floor(leaseMs / 3)),
    pollMs: toMilliseconds(options.pollInterval ?? '1s', 'pollInterval'),
    maxOutputBytes: options.maxOutputBytes ?? OutputBytes,
    completionBatchSize,
    writeRetryMs: Math.floor(leaseMs / 2),
    logErrorMessages: options.logErrorMessages === true,
    signalStopMs:
      handleSignals === false
        ? undefined
        : toMilliseconds(
            (typeof handleSignals === 'object' ? handleSignals.timeout : undefined) ?? '10s',
            'handleSignals.timeout',
          ),
    random: options.random ?? Math.random,
    workflows: options.workflows ?? [],
  };
}
