import type { NodeFacts, RunState, RunStatus, StepEvent, StepStatus } from '@cyclone/core';
import type { NewJobs, NewRun } from './new-run.js';
import type { Queryable } from './queryable.js';
import type { SchemaCheck } from './schema-check.js';

/** What {@link RunCommands.submit} returns for each run. */
export interface SubmittedRun {
  readonly runId: string;
  /** False when an existing run with the same idempotency key was returned. */
  readonly created: boolean;
}

/** Filters of {@link RunReads.listRuns}. */
export interface RunQuery {
  readonly states?: readonly RunState[];
  readonly workflow?: string;
  /** Only the child runs that this run's child nodes started. */
  readonly parentRunId?: string;
  readonly createdAfter?: Date;
  readonly createdBefore?: Date;
  /** Only the run submitted with this idempotency key (as stored: a batch's keys end in `:index`). */
  readonly idempotencyKey?: string;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
  /** @defaultValue 50 */
  readonly limit?: number;
}

/**
 * Which step of a run {@link RunReads.nodeFacts} reads: by step id, or by node name (with the
 * item index for an item task of a fan-out node).
 */
export type NodeLocator =
  { readonly stepId: string } | { readonly node: string; readonly itemIndex?: number | null };

/** One page of runs. */
export interface RunPage {
  readonly runs: RunStatus[];
  /** Pass as `cursor` for the next page; absent on the last page. */
  readonly nextCursor?: string;
}

/** A validated signal: its name checked, its payload encoded. */
export interface SignalDelivery {
  readonly runId: string;
  readonly name: string;
  /** The payload, already encoded as JSON text. */
  readonly payloadJson: string;
  /** The sender's id: the same id twice in a run is delivered once. */
  readonly signalId?: string | null;
}

/** What a delivery did. */
export interface SignalReceipt {
  /** True when the run already had a signal with this id; nothing was written. */
  readonly duplicate: boolean;
  /** The node that consumed the signal, or null while it is buffered for a later node. */
  readonly consumedBy: string | null;
}

/** The writes an application or an operator makes on runs. */
export interface RunCommands {
  /**
   * Inserts runs with all their steps in one statement, on the pool or on the caller's own
   * transaction. A run whose idempotency key exists already is not inserted; its existing id is
   * returned with `created: false`.
   */
  submit(runs: readonly NewRun[], tx?: Queryable): Promise<SubmittedRun[]>;
  /**
   * Enqueues standalone jobs of one kind that share their options, in one statement, on the pool
   * or on the caller's own transaction: the rows {@link RunCommands.submit} would write for them,
   * sent in a leaner shape. A job whose idempotency key exists already is not inserted; its
   * existing run's id is returned with `created: false`.
   */
  enqueue(jobs: NewJobs, tx?: Queryable): Promise<SubmittedRun[]>;
  /**
   * Delivers a signal to a run under its lock: stored (once per signal id), and consumed at once
   * by the first node that waits for its name, or kept until one does.
   *
   * @throws NotFoundError for an unknown run; AlreadyTerminalError for a terminal run
   */
  signal(delivery: SignalDelivery): Promise<SignalReceipt>;
}

/** Reads of runs, steps and events. None of them writes. */
export interface RunReads extends SchemaCheck {
  /** One run's status (with its child runs), or undefined for an unknown id. */
  getRun(runId: string): Promise<RunStatus | undefined>;
  /** The statuses of several runs (unknown ids are left out). */
  getRuns(runIds: readonly string[]): Promise<RunStatus[]>;
  /** Runs newest first, filtered, one page at a time (follow `nextCursor`). */
  listRuns(query?: RunQuery): Promise<RunPage>;
  /** A run's steps: nodes in declaration order, then item tasks in item order, with outputs. */
  listSteps(runId: string): Promise<StepStatus[]>;
  /** A run's events in order, after the event id `afterId` when given. */
  listEvents(runId: string, afterId?: number, limit?: number): Promise<StepEvent[]>;
  /** A node's state and output (item tasks excluded), or undefined for an unknown node. */
  nodeOutput(runId: string, node: string): Promise<{ state: string; output: unknown } | undefined>;
  /** The outputs of a run's completed leaf nodes: its result. */
  leafOutputs(runId: string): Promise<{ node: string; output: unknown }[]>;
  /**
   * What `explainNode` (core) decides from, for one step, read in one statement by the
   * database's clock: `'run'` for an unknown run, `'node'` for an unknown step. A worker counts as
   * live when it refreshed its registration within `livenessMs`.
   */
  nodeFacts(
    runId: string,
    locator: NodeLocator,
    livenessMs: number,
  ): Promise<NodeFacts | 'run' | 'node'>;

  /**
   * The newest definition stored under a workflow name (as JSON, unvalidated: parse it with
   * core's `parseWorkflowDefinition`), or undefined when no worker, scheduler or client stored one.
   */
  storedDefinition(name: string): Promise<unknown>;
}
