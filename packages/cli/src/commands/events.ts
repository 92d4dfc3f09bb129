import { UsageError } from '../cli-error.js';
import { table } from '../output.js';
import type { CommandContext } from './context.js';
import { withClient } from './with-client.js';

/** `cyclone events RUN`: the run's history in order. */
export async function eventsCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.args[0];
  if (!runId) throw new UsageError('events needs a run id');
  const events = await withClient(ctx, (client) => client.events(runId));
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify(events, null, 2));
    return 0;
  }
  ctx.output.out(
    table(
      ['at', 'node', 'type', 'from', 'to', 'error kind'],
      events.map((e) => [
        e.at.toISOString(),
        e.node ?? '(run)',
        e.type,
        e.from ?? '-',
        e.to ?? '-',
        e.errorKind ?? '-',
      ]),
    ),
  );
  return 0;
}
