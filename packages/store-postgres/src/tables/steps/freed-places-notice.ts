import { StepState } from '@cyclone/core';
import { Channels } from '../../db/channels.js';
import type { Tables } from '../../db/tables.js';
import { sqlConstant } from '../events/record-events.js';

const running = sqlConstant(StepState.Running);

/**
 * The SQL of a CTE that wakes the workers of every kind with a flow limit (`cyclone_limits`) among
 * the rows of `source` that left `running`: their places under a concurrency cap are free now, and
 * a worker whose last claim left steps of the kind waiting would otherwise find out only at its
 * next poll. `source` has `kind` and, unless every row of it was running (`allRunning`),
 * `from_state`. Each distinct kind costs one probe of the (small) limits table: the kinds are
 * made distinct before the probe, as a semi-join would probe once per row (200 probes for a batch
 * of 200 completions of one kind).
 */
export function freedPlacesNotice(
  t: Pick<Tables, 'limits'>,
  source: string,
  allRunning = false,
): string {
  const left = allRunning ? 'true' : `from_state = ${running}`;
  return `SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM ${source} WHERE ${left}) freed
  WHERE kind IN (SELECT l.kind FROM ${t.limits} l)`;
}
