import type { StepEvent, StepStatus } from '@cyclone/core';
import type { SqlRunner } from '../db/sql-runner.js';
import { getNodeOutput } from '../tables/steps/get-node-output.js';
import { listEvents } from './list-events.js';
import { listSteps } from './list-steps.js';
import { toStepEvent, toStepStatus } from './to-status.js';

/** A run's steps: nodes in declaration order, then item tasks in item order, with outputs. */
export async function readSteps(db: SqlRunner, runId: string): Promise<StepStatus[]> {
  return (await listSteps(db, { runId })).map(toStepStatus);
}

/** A run's events in order, after the event id `afterId` when given. */
export async function readEvents(
  db: SqlRunner,
  runId: string,
  afterId?: number,
  limit = 10_000,
): Promise<StepEvent[]> {
  return (await listEvents(db, { runId, afterId: afterId ?? null, limit })).map(toStepEvent);
}

/** A node's state and output (item tasks excluded), or undefined for an unknown node. */
export async function readNodeOutput(
  db: SqlRunner,
  runId: string,
  node: string,
): Promise<{ state: string; output: unknown } | undefined> {
  const row = await getNodeOutput(db, { runId, node });
  return row && { state: row.state, output: row.output };
}
