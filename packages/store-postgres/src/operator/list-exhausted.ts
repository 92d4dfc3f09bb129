import { StepState } from '@cyclone/core';
import type { ExhaustedPage, ExhaustedQuery, ExhaustedReason } from '../contract/operator-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { decodeExhaustedCursor, encodeExhaustedCursor } from './exhausted-cursor.js';
import { findExhausted } from './find-exhausted.js';

/** Reads one page of the DLQ, newest discard first. */
export async function listExhausted(
  db: SqlRunner,
  query: ExhaustedQuery = {},
): Promise<ExhaustedPage> {
  const limit = query.limit ?? 50;
  const after = query.cursor === undefined ? undefined : decodeExhaustedCursor(query.cursor);
  const rows = await findExhausted(db, {
    discardedState: StepState.Exhausted,
    reason: query.reason ?? null,
    workflow: query.workflow ?? null,
    before: null,
    afterEndedAt: after?.endedAt ?? null,
    afterId: after?.id ?? null,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    steps: page.map((r) => ({
      reason: r.error_kind as ExhaustedReason,
      runId: r.run_id,
      workflow: r.workflow,
      node: r.node,
      stepId: r.id,
      kind: r.kind,
      itemIndex: r.item_index,
      attempts: r.attempts,
      maxAttempts: r.max_attempts,
      error: r.error,
      endedAt: r.ended_at,
    })),
    ...(rows.length > limit && last
      ? { nextCursor: encodeExhaustedCursor(last.ended_at_text, last.id) }
      : {}),
  };
}
