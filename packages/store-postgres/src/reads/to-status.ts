import type { ChildRunSummary, RunStatus, StepEvent, StepStatus } from '@cyclone/core';
import { StepTrigger } from '@cyclone/core';
import type { EventRecord } from '../schema/rows.js';
import type { RunReadRow, StepReadRow } from './run-columns.js';

/** Maps a run row to the public {@link RunStatus}. */
export function toRunStatus(row: RunReadRow, children?: readonly ChildRunSummary[]): RunStatus {
  return {
    id: row.id,
    workflow: row.workflow,
    state: row.state,
    errorKind: row.error_kind,
    error: row.error,
    failedNode: row.failed_node,
    parentRunId: row.parent_run_id,
    parentStepId: row.parent_step_id,
    ...(children === undefined ? {} : { children }),
    idempotencyKey: row.idempotency_key,
    deadlineAt: row.deadline_at,
    failureCount: row.failure_count,
    reclaimCount: row.reclaim_count,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    totalRunTimeMs:
      row.started_at && row.ended_at ? row.ended_at.getTime() - row.started_at.getTime() : null,
  };
}

/** Maps a step row to the public {@link StepStatus}. */
export function toStepStatus(row: StepReadRow): StepStatus {
  return {
    id: row.id,
    runId: row.run_id,
    node: row.node,
    nodeType: row.node_type,
    kind: row.kind,
    state: row.state,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    reclaims: row.reclaims,
    error: row.error,
    errorKind: row.error_kind,
    panicStack: row.panic_stack,
    timedOut: row.timed_out,
    cached: row.cached,
    ...(row.awaiting_resource === undefined ? {} : { awaitingResource: row.awaiting_resource }),
    ...(row.output === undefined || row.output === null ? {} : { output: row.output }),
    dependsOn: row.depends_on,
    itemIndex: row.item_index,
    maxParallel: row.max_parallel,
    childRunId: row.child_run_id,
    scheduledAt: row.scheduled_at,
    leaseExpiresAt: row.lease_expires_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
    waitSignals: row.wait_signals,
    waitN: row.wait_n,
    waitGathered: row.wait_gathered,
    waitDeadlineAt: row.wait_deadline_at,
    waitRemainingMs:
      row.wait_remaining_ms === null ? null : Math.max(0, Number(row.wait_remaining_ms)),
  };
}

/** Maps an event row to the public {@link StepEvent}. */
export function toStepEvent(row: EventRecord): StepEvent {
  return {
    id: Number(row.id),
    at: row.at,
    runId: row.run_id,
    stepId: row.step_id,
    node: row.node,
    type: row.type,
    from: row.from_state,
    to: row.to_state,
    trigger: row.trigger,
    errorKind: row.error_kind,
    detail: row.detail,
    ...(row.trigger === StepTrigger.Force ? operatorMove(row.detail) : {}),
  };
}

/** What an operator's move records in its detail, as `StepEvent.forced` and `reason`. */
function operatorMove(detail: Readonly<Record<string, unknown>> | null): {
  forced: boolean;
  reason?: string;
} {
  const reason = detail?.['reason'];
  return {
    forced: detail?.['forced'] === true,
    ...(typeof reason === 'string' ? { reason } : {}),
  };
}
