import type {
  ErrorKind,
  RunState,
  RunStatus,
  StepEvent,
  StepState,
  StepStatus,
} from '@cyclone/core';

/** A run row as the read queries return it. */
export interface RunRow {
  id: string;
  workflow: string;
  state: RunState;
  error_kind: ErrorKind | null;
  error: string | null;
  failed_node: string | null;
  parent_run_id: string | null;
  idempotency_key: string | null;
  deadline_at: Date | null;
  failure_count: number;
  reclaim_count: number;
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
}

/** A step row as the read queries return it. */
export interface StepRow {
  id: string;
  run_id: string;
  node: string;
  node_type: string;
  kind: string | null;
  state: StepState;
  attempts: number;
  max_attempts: number;
  reclaims: number;
  error: string | null;
  error_kind: ErrorKind | null;
  panic_stack: string | null;
  timed_out: boolean;
  depends_on: string[];
  item_index: number | null;
  child_run_id: string | null;
  scheduled_at: Date;
  lease_expires_at: Date | null;
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  output?: unknown;
}

/** An event row. */
export interface EventRow {
  id: string;
  run_id: string;
  step_id: string | null;
  node: string | null;
  type: string;
  from_state: string | null;
  to_state: string | null;
  error_kind: ErrorKind | null;
  detail: Record<string, unknown> | null;
  at: Date;
}

export function toRunStatus(row: RunRow): RunStatus {
  return {
    id: row.id,
    workflow: row.workflow,
    state: row.state,
    errorKind: row.error_kind,
    error: row.error,
    failedNode: row.failed_node,
    parentRunId: row.parent_run_id,
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

export function toStepStatus(row: StepRow): StepStatus {
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
    ...(row.output === undefined || row.output === null ? {} : { output: row.output }),
    dependsOn: row.depends_on,
    itemIndex: row.item_index,
    childRunId: row.child_run_id,
    scheduledAt: row.scheduled_at,
    leaseExpiresAt: row.lease_expires_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    endedAt: row.ended_at,
  };
}

export function toStepEvent(row: EventRow): StepEvent {
  return {
    id: Number(row.id),
    at: row.at,
    runId: row.run_id,
    stepId: row.step_id,
    node: row.node,
    type: row.type,
    from: row.from_state,
    to: row.to_state,
    errorKind: row.error_kind,
    detail: row.detail,
  };
}
