import { StepState } from '@cyclone/core';
import type { SubmittedRun } from '../../contract/run-store.js';
import type { SqlRunner } from '../../db/sql-runner.js';
import { findRunsByIdempotencyKey } from './find-runs-by-idempotency-key.js';
import { insertRuns, insertRunsParams } from './insert-runs.js';
import type { NewRun } from '../../contract/new-run.js';

/**
 * Inserts runs with all their steps in one statement, on the SQL runner's connection (the pool or
 * the caller's transaction). A run whose idempotency key exists already is not inserted; its
 * existing id is returned with `created: false`.
 */
export async function insertNewRuns(
  db: SqlRunner,
  runs: readonly NewRun[],
): Promise<SubmittedRun[]> {
  const inserted = new Set((await insertRuns(db, insertRunsParams(runs))).map((r) => r.id));
  return submittedRuns(db, runs, inserted);
}

/**
 * What a submission returns for each run it tried to insert, in order: `created` for those it
 * inserted; for the others, skipped for their idempotency key, the run that holds the key.
 */
export async function submittedRuns(
  db: SqlRunner,
  runs: readonly { readonly id: string; readonly idempotencyKey: string | null }[],
  inserted: ReadonlySet<string>,
): Promise<SubmittedRun[]> {
  const missing = runs.filter((r) => !inserted.has(r.id) && r.idempotencyKey !== null);
  const existing = new Map<string, string>();
  if (missing.length > 0) {
    const keys = missing.map((r) => r.idempotencyKey);
    for (const row of await findRunsByIdempotencyKey(db, { keys })) {
      existing.set(row.idempotency_key, row.id);
    }
  }
  return runs.map((run) => {
    if (inserted.has(run.id)) return { runId: run.id, created: true };
    const found = run.idempotencyKey === null ? undefined : existing.get(run.idempotencyKey);
    if (found !== undefined) return { runId: found, created: false };
    // Inserted by neither this call nor anyone else: only a key that was itself in this batch twice.
    const twin = runs.find((r) => r.idempotencyKey === run.idempotencyKey && inserted.has(r.id));
    if (twin) return { runId: twin.id, created: false };
    throw new Error(`run ${run.id} was not inserted and no run holds its idempotency key`);
  });
}

/**
 * The runs of a submission that settlement moves on at once: those created with child nodes
 * waiting from the start (settling starts their child runs) or with cached tasks that have no
 * dependencies (settling looks their keys up). The insert wrote each to the settlement outbox.
 */
export function runsSettledAtSubmit(
  runs: readonly NewRun[],
  submitted: readonly SubmittedRun[],
): string[] {
  const waiting = new Set(
    runs
      .filter((r) =>
        r.steps.some(
          (s) =>
            s.state === StepState.WaitingChild ||
            (s.cacheTtlMs != null && s.dependsOn.length === 0),
        ),
      )
      .map((r) => r.id),
  );
  return submitted.filter((s) => s.created && waiting.has(s.runId)).map((s) => s.runId);
}
