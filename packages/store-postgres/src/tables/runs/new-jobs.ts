import type { NewJobs, NewRun, SharedJobOptions } from '../../contract/new-run.js';
import { uuidv7 } from '../../db/ids.js';
import { runOfJob } from './new-runs.js';

/**
 * Builds the rows of standalone jobs of one kind that share their options (an `enqueueMany`): a
 * run id a job, made here (its step shares it, decision 302), and the arguments as given. The rows are those of
 * `runOfJob` for each job; only their shape differs. Pass the result to the store's `enqueue`.
 *
 * @param kind - the handler kind, also each run's workflow name and its step's node name
 * @param argsJson - each job's arguments, already encoded and validated as JSON text
 * @param options - what the jobs share; `idempotencyKey` is each job's key, or with
 *   `suffixKeys` the prefix of `key:0`, `key:1`, ... in order
 *
 * @example
 * ```ts
 * const jobs = newJobs('email.send', ['{"to":"a@example.com"}', '{"to":"b@example.com"}'], {
 *   idempotencyKey: 'newsletter-42',
 *   suffixKeys: true,
 * });
 * const submitted = await store.enqueue(jobs); // [{ runId, created }, ...] in order
 * ```
 */
export function newJobs(
  kind: string,
  argsJson: readonly string[],
  options: SharedJobOptions & { idempotencyKey?: string | null; suffixKeys?: boolean } = {},
): NewJobs {
  const runIds = new Array<string>(argsJson.length);
  for (let i = 0; i < argsJson.length; i++) runIds[i] = uuidv7();
  const { suffixKeys = false, idempotencyKey = null, ...shared } = options;
  return { kind, runIds, argsJson, idempotencyKey, suffixKeys, options: shared };
}

/** The idempotency key each job of {@link NewJobs} is stored with (null for none). */
export function jobIdempotencyKey(jobs: NewJobs, index: number): string | null {
  if (jobs.idempotencyKey === null) return null;
  return jobs.suffixKeys ? `${jobs.idempotencyKey}:${index}` : jobs.idempotencyKey;
}

/**
 * The same jobs as runs of `runOfJob` (their ids kept), for the general insert: what a bulk
 * enqueue too large for one JSON array of arguments takes.
 */
export function jobsAsRuns(jobs: NewJobs): NewRun[] {
  return jobs.runIds.map((id, i) => {
    const run = runOfJob(jobs.kind, jobs.argsJson[i]!, {
      ...jobs.options,
      idempotencyKey: jobIdempotencyKey(jobs, i),
    });
    return { ...run, id, steps: [{ ...run.steps[0]!, id }] };
  });
}
