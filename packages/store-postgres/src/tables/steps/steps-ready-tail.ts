import { EventType } from '@cyclone/core';
import { Channels } from '../../db/channels.js';
import type { Tables } from '../../db/tables.js';
import { recordEvents, sqlConstant } from '../events/record-events.js';

/** The placeholders of the change that made the steps ready (a statement's parameters). */
export interface ReadyChange {
  readonly eventFrom: string;
  readonly toState: string;
  readonly trigger: string;
}

/**
 * The end of a statement that makes steps claimable (a promotion, a cache miss, a fan-out's
 * release): each step of the CTE `source` (`id, run_id, node, kind`) gets its `step_ready` event,
 * each of their kinds one `steps_available` notification, and the statement returns the steps'
 * ids. Written after the CTE that moved the steps: `), ${stepsReadyTail(t, 'promoted', p)}`.
 */
export function stepsReadyTail(t: Tables, source: string, p: ReadyChange): string {
  return `events AS (
  ${recordEvents(t, {
    source,
    type: sqlConstant(EventType.StepReady),
    from: `(SELECT ${p.eventFrom}::text)`,
    to: `(SELECT ${p.toState}::text)`,
    trigger: `(SELECT ${p.trigger}::text)`,
  })}
), notified AS (
  SELECT pg_notify('${Channels.stepsAvailable}', kind)
  FROM (SELECT DISTINCT kind FROM ${source} WHERE kind IS NOT NULL) k
)
SELECT id, (SELECT count(*) FROM notified) AS notified FROM ${source}`;
}
