import {
  DefaultMaxAttempts,
  DefaultMaxReclaims,
  insertedStepState,
  OnDepFailure,
} from '@cyclone/core';
import { Channels } from '../../db/channels.js';
import type { SqlRunner } from '../../db/sql-runner.js';
import { defineStatement } from '../../db/statement.js';
import { runSubmitted } from '../events/run-row-events.js';
import type { NewJobs } from '../../contract/new-run.js';
import type { SubmittedRun } from '../../contract/run-store.js';
import { insertNewRuns, submittedRuns } from './insert-new-runs.js';
import { jobIdempotencyKey, jobsAsRuns } from './new-jobs.js';

/**
 * The most argument text one lean insert sends in its single JSON array: well under what one
 * `jsonb` value may hold (about 255 MB). A larger enqueue takes the general insert, which sends
 * each job's arguments as an element of its own.
 */
export const LeanEnqueueMaxChars = 64 * 1024 * 1024;

/**
 * Enqueues standalone jobs of one kind, on the pool or the caller's transaction: in one statement
 * (below), or through the general insert of runs (`insertNewRuns`) when their arguments exceed
 * `maxLeanChars`. A job whose idempotency key exists already is not inserted; the run holding the
 * key is returned with `created: false`. Jobs need no settlement: no child node, no cache, nothing
 * to start after the insert.
 */
export async function insertNewJobs(
  db: SqlRunner,
  jobs: NewJobs,
  maxLeanChars: number = LeanEnqueueMaxChars,
): Promise<SubmittedRun[]> {
  if (jobs.runIds.length === 0) return [];
  let chars = 0;
  for (const args of jobs.argsJson) chars += args.length;
  if (chars > maxLeanChars) return insertNewRuns(db, jobsAsRuns(jobs));
  const { inserted } = await insertJobs(db, insertJobsParams(jobs));
  if (inserted === null) return jobs.runIds.map((runId) => ({ runId, created: true }));
  const candidates = jobs.runIds.map((id, i) => ({
    id,
    idempotencyKey: jobIdempotencyKey(jobs, i),
  }));
  return submittedRuns(db, candidates, new Set(inserted));
}

/**
 * The parameters of {@link insertJobs}: what varies per job in two values (the ids and a JSON array
 * of arguments), everything the jobs share once.
 */
export interface InsertJobsParams {
  kind: string;
  /**
   * The run ids as a Postgres array literal (`{id,id,...}`): uuids need no quoting. Each job's
   * step has its run's id (decision 302).
   */
  runIds: string;
  /** A JSON array of the jobs' arguments, in order. */
  args: string;
  idempotencyKey: string | null;
  suffixKeys: boolean;
  deadlineMs: number | null;
  maxReclaims: number;
  traceContext: string | null;
  runState: string;
  stepState: string;
  onDepFailure: string;
  maxAttempts: number;
  timeoutMs: number | null;
  backoff: string | null;
  delayMs: number | null;
  runAt: Date | null;
  concurrencyKey: string | null;
  priority: number;
}

/** What {@link insertJobs} returns: the ids of the runs it inserted when the jobs have a key. */
export interface InsertedJobsRow {
  /** Null when the jobs have no idempotency key: then every job was inserted. */
  inserted: string[] | null;
}

/**
 * Enqueues standalone jobs of one kind in one statement: a run and a task step a job, the same
 * rows `insert-runs` writes for them (no event row, the kind notified on commit when a step is
 * claimable now). It binds a few values however many jobs there are: the ids as array literals,
 * the arguments as one JSON array (parsed once, then split), the shared options once; that is
 * what makes a bulk enqueue cheap on both sides of the connection. A job whose idempotency key
 * is taken already (`cyclone_run_keys`) is skipped; the caller looks the key's run up.
 */
const statement = defineStatement<InsertJobsParams, InsertedJobsRow>(
  'insert-jobs',
  (t, p) => `
WITH job AS (
  SELECT (${p.runIds}::uuid[])[a.ord] AS id, a.args,
         CASE WHEN ${p.idempotencyKey}::text IS NULL THEN NULL
              WHEN ${p.suffixKeys}::boolean THEN ${p.idempotencyKey}::text || ':' || (a.ord - 1)
              ELSE ${p.idempotencyKey}::text END AS idempotency_key, a.ord
  FROM jsonb_array_elements(${p.args}::jsonb) WITH ORDINALITY AS a(args, ord)
), keyed AS (
  -- A job's key is taken by inserting it, as in insert-runs, in the keys' sorted order as there;
  -- only a job whose key was inserted is inserted.
  INSERT INTO ${t.runKeys} (key, run_id)
  SELECT idempotency_key, id FROM job WHERE idempotency_key IS NOT NULL
  ORDER BY idempotency_key, ord
  ON CONFLICT (key) DO NOTHING
  RETURNING run_id
), new_runs AS (
  INSERT INTO ${t.runsHot} (id, workflow, input, idempotency_key, deadline_at, max_reclaims,
                         open_steps, trace_context, state)
  SELECT id, ${p.kind}::text, args, idempotency_key,
         now() + ${p.deadlineMs}::bigint * interval '1 millisecond', ${p.maxReclaims}::int, 1,
         ${p.traceContext}::jsonb, ${p.runState}::text
  FROM job
  WHERE ${p.idempotencyKey}::text IS NULL OR id IN (SELECT run_id FROM keyed)
  RETURNING id
), new_steps AS (
  INSERT INTO ${t.stepsHot} (id, run_id, node, node_type, kind, state, on_dep_failure, max_attempts,
                          timeout_ms, backoff, scheduled_at, concurrency_key, priority)
  SELECT id, id, ${p.kind}::text, 'task', ${p.kind}::text, ${p.stepState}::text,
         ${p.onDepFailure}::text, ${p.maxAttempts}::int, ${p.timeoutMs}::int, ${p.backoff}::jsonb,
         coalesce(${p.runAt}::timestamptz,
                  now() + coalesce(${p.delayMs}::bigint, 0) * interval '1 millisecond'),
         ${p.concurrencyKey}::text, ${p.priority}::bigint
  FROM job
  -- Without a key nothing can conflict: every run was inserted, and no join is needed.
  WHERE ${p.idempotencyKey}::text IS NULL OR id IN (SELECT id FROM new_runs)
), notified AS (
  -- The jobs share their start: claimable now, or later (then the workers' poll finds them).
  SELECT pg_notify('${Channels.stepsAvailable}', ${p.kind}::text)
  WHERE coalesce(${p.runAt}::timestamptz,
                 now() + coalesce(${p.delayMs}::bigint, 0) * interval '1 millisecond') <= now()
    AND EXISTS (SELECT 1 FROM new_runs)
)
SELECT CASE WHEN ${p.idempotencyKey}::text IS NULL THEN NULL
            ELSE ARRAY(SELECT id::text FROM new_runs) END AS inserted,
       (SELECT count(*) FROM notified) AS notified
`,
);

/** Inserts standalone jobs of one kind in one statement (see the statement). */
export async function insertJobs(db: SqlRunner, p: InsertJobsParams): Promise<InsertedJobsRow> {
  const [row] = await db.rows(statement, p);
  return row!;
}

const jobStepState = insertedStepState({ nodeType: 'task', hasDependencies: false, cached: false });

/** The parameters of {@link insertJobs} for jobs built by `newJobs`. */
export function insertJobsParams(jobs: NewJobs): InsertJobsParams {
  const o = jobs.options;
  return {
    kind: jobs.kind,
    runIds: `{${jobs.runIds.join(',')}}`,
    args: `[${jobs.argsJson.join(',')}]`,
    idempotencyKey: jobs.idempotencyKey,
    suffixKeys: jobs.suffixKeys,
    deadlineMs: o.deadlineMs ?? null,
    maxReclaims: o.maxReclaims ?? DefaultMaxReclaims,
    traceContext: o.traceContext ? JSON.stringify(o.traceContext) : null,
    runState: runSubmitted.to,
    stepState: jobStepState,
    onDepFailure: OnDepFailure.FailRun,
    maxAttempts: o.maxAttempts ?? DefaultMaxAttempts,
    timeoutMs: o.timeoutMs ?? null,
    backoff: o.backoff ? JSON.stringify(o.backoff) : null,
    delayMs: o.delayMs ?? null,
    runAt: o.runAt ?? null,
    concurrencyKey: o.concurrencyKey ?? null,
    priority: o.priority ?? 0,
  };
}
