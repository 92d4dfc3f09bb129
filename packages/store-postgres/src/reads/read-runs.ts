import type { RunStatus } from '@cyclone/core';
import type { RunPage, RunQuery } from '../contract/run-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { getRun } from './get-run.js';
import { getRuns } from './get-runs.js';
import { listChildRuns } from './list-child-runs.js';
import { listRuns } from './list-runs.js';
import { decodeCursor, encodeCursor } from './run-cursor.js';
import { toRunStatus } from './to-status.js';

/** One run's status with its child runs, or undefined for an unknown id. */
export async function readRun(db: SqlRunner, runId: string): Promise<RunStatus | undefined> {
  const row = await getRun(db, { runId });
  if (!row) return undefined;
  const children = await listChildRuns(db, { runId });
  return toRunStatus(
    row,
    children.map((c) => ({ runId: c.run_id, node: c.node, stepId: c.step_id, state: c.state })),
  );
}

/** The statuses of several runs (unknown ids are left out). */
export async function readRuns(db: SqlRunner, runIds: readonly string[]): Promise<RunStatus[]> {
  if (runIds.length === 0) return [];
  return (await getRuns(db, { runIds })).map((row) => toRunStatus(row));
}

/** Runs newest first, filtered, one page at a time (follow `nextCursor`). */
export async function readRunPage(db: SqlRunner, query: RunQuery = {}): Promise<RunPage> {
  const limit = query.limit ?? 50;
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const rows = await listRuns(db, {
    states: query.states && query.states.length > 0 ? query.states : null,
    workflow: query.workflow ?? null,
    idempotencyKey: query.idempotencyKey ?? null,
    parentRunId: query.parentRunId ?? null,
    createdAfter: query.createdAfter ?? null,
    createdBefore: query.createdBefore ?? null,
    cursorAt: cursor?.createdAt ?? null,
    cursorId: cursor?.id ?? null,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const runs = page.map((row) => toRunStatus(row));
  return rows.length > limit && last
    ? { runs, nextCursor: encodeCursor(last.cursor_at, last.id) }
    : { runs };
}
