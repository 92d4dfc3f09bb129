import { Channels } from '../../db/channels.js';
import { notifyIdsInChunks } from '../../db/notify-ids.js';

/**
 * The SQL of a CTE that pushes the ids of the rows of `source` whose `from_state` was running to
 * the steps-cancelled channel, in chunks under NOTIFY's payload limit. The state is a bound
 * parameter (`runningState`) of the statement that embeds it.
 */
export function stepsEndedNotice(source: string, runningState: string): string {
  return notifyIdsInChunks(
    Channels.stepsCancelled,
    `(SELECT id FROM ${source} WHERE from_state = (SELECT ${runningState}::text)) s`,
  );
}
