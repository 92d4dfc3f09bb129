import { Channels } from '../db/channels.js';

/**
 * The SQL of a CTE that pushes the ids of the rows of `source` whose `from_state` was running to
 * the steps-cancelled channel, in chunks that stay under NOTIFY's 8000-byte payload limit. The
 * state is a bound parameter (`runningState`) of the statement that embeds it.
 */
export function stepsEndedNotice(source: string, runningState: string): string {
  return `
  SELECT pg_notify('${Channels.stepsCancelled}', string_agg(id::text, ','))
  FROM (SELECT id, (row_number() OVER () - 1) / 150 AS chunk FROM ${source}
        WHERE from_state = ${runningState}::text) r
  GROUP BY chunk`;
}
