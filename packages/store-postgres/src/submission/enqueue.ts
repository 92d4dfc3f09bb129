import type { NewJobs } from '../contract/new-run.js';
import type { SubmittedRun } from '../contract/run-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { insertJobs, insertJobsParams } from '../tables/runs/insert-jobs.js';
import { insertNewRuns, submittedRuns } from '../tables/runs/insert-new-runs.js';
import { jobIdempotencyKey, jobsAsRuns } from '../tables/runs/new-jobs.js';

/**
 * The most argument text one lean insert sends in its single JSON array: well under what one
 * `jsonb` value may hold (about 255 MB). A larger enqueue takes the general insert, which sends
 * each job's arguments as an element of its own.
 */
export const LeanEnqueueMaxChars = 64 * 1024 * 1024;

/**
 * Enqueues standalone jobs of one kind in one statement (`insert-jobs`), on the pool or the
 * caller's transaction. A job whose idempotency key exists already is not inserted; the run
 * holding the key is returned with `created: false`. Jobs need no settlement: no child node, no
 * cache, nothing to start after the insert.
 */
export async function enqueue(
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
