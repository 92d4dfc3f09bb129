import { eventLabels } from '@cyclone/core';
import { requiredArg } from '../framework/command-arguments.js';
import { table } from '../terminal/output.js';
import { terminalWidth } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

/**
 * `cyclone events RUN`: the run's history in order, each event with its sub-state label
 * (`AwaitingRetry`, `Retrying`, `Late`, `Crashed`, `TimedOut`); an operator's move of a node shows
 * `forced` and its reason; `--json` adds `label`.
 */
export async function eventsCommand(ctx: CommandContext): Promise<number> {
  const runId = requiredArg(ctx, 0, 'events', 'a run id');
  const events = await withClient(ctx, (client) => client.events(runId));
  const labels = eventLabels(events);
  if (ctx.flags.json) {
    const labelled = events.map((e, i) => (labels[i] ? { ...e, label: labels[i] } : e));
    ctx.output.out(JSON.stringify(labelled, null, 2));
    return 0;
  }
  ctx.output.out(
    table(
      ['at', 'node', 'type', 'from', 'to', 'label', 'error kind'],
      events.map((e, i) => [
        e.at.toISOString(),
        e.node ?? '(run)',
        e.forced === undefined
          ? e.type
          : `${e.type} (${e.forced ? 'forced' : 'operator'}: ${e.reason ?? ''})`,
        e.from ?? '-',
        e.to ?? '-',
        labels[i] ?? '-',
        e.errorKind ?? '-',
      ]),
      { width: terminalWidth(), shrink: [1] },
    ),
  );
  return 0;
}
