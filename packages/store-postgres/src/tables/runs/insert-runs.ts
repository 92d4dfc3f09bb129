import { StepState, type WorkflowDefinition } from '@cyclone/core';
import { Channels } from '../../db/channels.js';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { runSubmitted } from '../events/run-row-events.js';
import type { NewRun } from '../../contract/new-run.js';

/** The column arrays of {@link insertRuns}: one entry per definition, run and step. */
export interface InsertRunsParams {
  defHashes: string[];
  defNames: string[];
  defJson: string[];
  runIds: string[];
  runWorkflows: string[];
  runDefinitionHashes: (string | null)[];
  runInputs: string[];
  runIdempotencyKeys: (string | null)[];
  runDeadlineMs: (number | null)[];
  runMaxReclaims: (number | null)[];
  runOpenSteps: number[];
  runParentRunIds: (string | null)[];
  runParentStepIds: (string | null)[];
  runTraceContexts: (string | null)[];
  stepIds: string[];
  stepRunIds: string[];
  stepNodes: string[];
  stepNodeTypes: string[];
  stepKinds: (string | null)[];
  stepStates: string[];
  stepDependsOn: string[];
  stepDepsRemaining: number[];
  stepOnDepFailure: string[];
  stepMaxAttempts: number[];
  stepTimeoutMs: (number | null)[];
  stepBackoff: (string | null)[];
  stepDelayMs: (number | null)[];
  stepWaitSignals: (string | null)[];
  stepWaitN: (number | null)[];
  stepMaxWaitMs: (number | null)[];
  stepWaitForMs: (number | null)[];
  stepMaxParallel: (number | null)[];
  stepRunAt: (Date | null)[];
  stepConcurrencyKeys: (string | null)[];
  stepPriorities: number[];
  stepCacheTtlMs: (number | null)[];
  stepCacheKeys: (string | null)[];
  /**
   * The state of a child node that waits for its child run (`waiting_child`): a run inserted with
   * one goes to the settlement outbox, whose settlement starts the child run.
   */
  childWaitingState: string;
  /** The state a run is inserted in. */
  runState: string;
}

/** An inserted run. */
export interface InsertedRunRow {
  id: string;
}

/**
 * Submits runs in bulk: definitions, runs and their steps, in one statement (so one transaction,
 * and one round trip however many runs). No event row: a run's `run_submitted` is told by its row
 * (reads/run-row-events.ts). A run's idempotency key is inserted into `cyclone_run_keys` first;
 * a run whose key is taken already is skipped with its steps, and the caller looks the key's run
 * up. Newly claimable kinds are notified on commit. A run inserted with a child node already
 * waiting (one with no dependencies) is written to the settlement outbox in the same statement:
 * settling it starts the child run, and a crash before that leaves the marker for
 * `settle-pending`.
 */
const statement = defineStatement<InsertRunsParams, InsertedRunRow>(
  'insert-runs',
  (t, p) => `
WITH defs AS (
  INSERT INTO ${t.workflows} (hash, name, definition)
  SELECT * FROM unnest(${p.defHashes}::text[], ${p.defNames}::text[], ${p.defJson}::jsonb[])
  ON CONFLICT (hash) DO NOTHING
), keyed AS (
  -- A key is taken by inserting it: the first run of the statement that names it takes it, unless
  -- a run holds it already (or a concurrent submit that commits first takes it: this waits for
  -- that transaction, then inserts nothing). Only a run whose key was inserted is inserted.
  -- Keys are inserted in their sorted order, as insert-jobs inserts them, so two submits naming
  -- the same keys wait for each other's first common key rather than each hold one the other
  -- wants (a deadlock, which costs a second before PostgreSQL breaks it); a key named twice is
  -- still taken by its first run.
  INSERT INTO ${t.runKeys} (key, run_id)
  SELECT k.key, k.run_id
  FROM unnest(${p.runIdempotencyKeys}::text[], ${p.runIds}::uuid[]) WITH ORDINALITY
       AS k(key, run_id, n)
  WHERE k.key IS NOT NULL
  ORDER BY k.key, k.n
  ON CONFLICT (key) DO NOTHING
  RETURNING run_id
), new_runs AS (
  INSERT INTO ${t.runsHot} (id, workflow, definition_hash, input, idempotency_key, deadline_at,
                         max_reclaims, open_steps, parent_run_id, parent_step_id, trace_context,
                         state)
  SELECT r.id, r.workflow, r.definition_hash, r.input, r.idempotency_key,
         now() + r.deadline_ms * interval '1 millisecond', r.max_reclaims, r.open_steps,
         r.parent_run_id, r.parent_step_id, r.trace_context, ${p.runState}::text
  FROM unnest(${p.runIds}::uuid[], ${p.runWorkflows}::text[], ${p.runDefinitionHashes}::text[],
              ${p.runInputs}::jsonb[], ${p.runIdempotencyKeys}::text[], ${p.runDeadlineMs}::bigint[],
              ${p.runMaxReclaims}::int[], ${p.runOpenSteps}::int[], ${p.runParentRunIds}::uuid[],
              ${p.runParentStepIds}::uuid[], ${p.runTraceContexts}::jsonb[])
       AS r(id, workflow, definition_hash, input, idempotency_key, deadline_ms, max_reclaims,
            open_steps, parent_run_id, parent_step_id, trace_context)
  WHERE r.idempotency_key IS NULL OR r.id IN (SELECT run_id FROM keyed)
  RETURNING id
), new_steps AS (
  INSERT INTO ${t.stepsHot} (id, run_id, node, node_type, kind, state, depends_on, deps_remaining,
                          on_dep_failure, max_attempts, timeout_ms, backoff, scheduled_at,
                          wait_signals, wait_n, max_wait_ms, wait_deadline_at, wait_for_ms,
                          max_parallel, concurrency_key, priority, cache_ttl_ms, cache_key)
  SELECT s.id, s.run_id, s.node, s.node_type, s.kind, s.state,
         ARRAY(SELECT jsonb_array_elements_text(s.depends_on)), s.deps_remaining,
         s.on_dep_failure, s.max_attempts, s.timeout_ms, s.backoff,
         coalesce(s.run_at, now() + coalesce(s.delay_ms, 0) * interval '1 millisecond'),
         CASE WHEN s.wait_signals IS NULL THEN NULL
              ELSE ARRAY(SELECT jsonb_array_elements_text(s.wait_signals)) END,
         s.wait_n, s.max_wait_ms,
         CASE WHEN s.state IN ('waiting_signal', 'waiting_child') AND s.max_wait_ms IS NOT NULL
              THEN now() + s.max_wait_ms * interval '1 millisecond' END,
         s.wait_for_ms, s.max_parallel, s.concurrency_key, s.priority, s.cache_ttl_ms,
         s.cache_key
  FROM unnest(${p.stepIds}::uuid[], ${p.stepRunIds}::uuid[], ${p.stepNodes}::text[],
              ${p.stepNodeTypes}::text[], ${p.stepKinds}::text[], ${p.stepStates}::text[],
              ${p.stepDependsOn}::jsonb[], ${p.stepDepsRemaining}::int[],
              ${p.stepOnDepFailure}::text[], ${p.stepMaxAttempts}::int[],
              ${p.stepTimeoutMs}::int[], ${p.stepBackoff}::jsonb[], ${p.stepDelayMs}::bigint[],
              ${p.stepWaitSignals}::jsonb[], ${p.stepWaitN}::int[], ${p.stepMaxWaitMs}::bigint[],
              ${p.stepWaitForMs}::bigint[], ${p.stepMaxParallel}::int[],
              ${p.stepRunAt}::timestamptz[], ${p.stepConcurrencyKeys}::text[],
              ${p.stepPriorities}::bigint[], ${p.stepCacheTtlMs}::bigint[],
              ${p.stepCacheKeys}::text[])
       AS s(id, run_id, node, node_type, kind, state, depends_on, deps_remaining, on_dep_failure,
            max_attempts, timeout_ms, backoff, delay_ms, wait_signals, wait_n, max_wait_ms,
            wait_for_ms, max_parallel, run_at, concurrency_key, priority, cache_ttl_ms, cache_key)
  WHERE s.run_id IN (SELECT id FROM new_runs)
  RETURNING run_id, kind, state, scheduled_at, deps_remaining, cache_ttl_ms
), marked AS (
  -- A child node already waiting starts its child run, and a cached task with no dependencies
  -- looks its key up, when the run is settled.
  INSERT INTO ${t.settlements} (run_id)
  SELECT DISTINCT run_id FROM new_steps
  WHERE state = ${p.childWaitingState}::text
     OR (cache_ttl_ms IS NOT NULL AND deps_remaining = 0)
  ON CONFLICT (run_id) DO NOTHING
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM new_steps
        WHERE state = 'available' AND kind IS NOT NULL AND scheduled_at <= now()) k
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM new_runs
`,
);

/** Inserts runs with their steps in one statement; returns the runs it inserted. */
export function insertRuns(db: SqlRunner, p: InsertRunsParams): Promise<InsertedRunRow[]> {
  return db.rows(statement, p);
}

/** Flattens runs into the column arrays of {@link insertRuns}. */
export function insertRunsParams(runs: readonly NewRun[]): InsertRunsParams {
  const defs = new Map<string, WorkflowDefinition>();
  for (const run of runs) if (run.definition) defs.set(run.definition.hash, run.definition);
  const steps = runs.flatMap((run) => run.steps.map((step) => ({ run, step })));
  const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));
  return {
    defHashes: [...defs.keys()],
    defNames: [...defs.values()].map((d) => d.name),
    defJson: [...defs.values()].map((d) => JSON.stringify(d)),
    runIds: runs.map((r) => r.id),
    runWorkflows: runs.map((r) => r.workflow),
    runDefinitionHashes: runs.map((r) => r.definition?.hash ?? null),
    runInputs: runs.map((r) => r.inputJson),
    runIdempotencyKeys: runs.map((r) => r.idempotencyKey),
    runDeadlineMs: runs.map((r) => r.deadlineMs),
    runMaxReclaims: runs.map((r) => r.maxReclaims),
    runOpenSteps: runs.map((r) => r.steps.length),
    runParentRunIds: runs.map((r) => r.parentRunId),
    runParentStepIds: runs.map((r) => r.parentStepId),
    runTraceContexts: runs.map((r) => json(r.traceContext)),
    stepIds: steps.map(({ step }) => step.id),
    stepRunIds: steps.map(({ run }) => run.id),
    stepNodes: steps.map(({ step }) => step.node),
    stepNodeTypes: steps.map(({ step }) => step.nodeType),
    stepKinds: steps.map(({ step }) => step.kind),
    stepStates: steps.map(({ step }) => step.state),
    stepDependsOn: steps.map(({ step }) => JSON.stringify(step.dependsOn)),
    stepDepsRemaining: steps.map(({ step }) => step.dependsOn.length),
    stepOnDepFailure: steps.map(({ step }) => step.onDepFailure),
    stepMaxAttempts: steps.map(({ step }) => step.maxAttempts),
    stepTimeoutMs: steps.map(({ step }) => step.timeoutMs),
    stepBackoff: steps.map(({ step }) => json(step.backoff)),
    stepDelayMs: steps.map(({ step }) => step.delayMs),
    stepWaitSignals: steps.map(({ step }) => json(step.waitSignals)),
    stepWaitN: steps.map(({ step }) => step.waitN),
    stepMaxWaitMs: steps.map(({ step }) => step.maxWaitMs),
    stepWaitForMs: steps.map(({ step }) => step.waitForMs),
    stepMaxParallel: steps.map(({ step }) => step.maxParallel),
    stepRunAt: steps.map(({ step }) => step.runAt ?? null),
    stepConcurrencyKeys: steps.map(({ step }) => step.concurrencyKey),
    stepPriorities: steps.map(({ step }) => step.priority),
    stepCacheTtlMs: steps.map(({ step }) => step.cacheTtlMs ?? null),
    stepCacheKeys: steps.map(({ step }) => step.cacheKey ?? null),
    childWaitingState: StepState.WaitingChild,
    runState: runSubmitted.to,
  };
}
