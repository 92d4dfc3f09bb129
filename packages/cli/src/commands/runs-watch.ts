import { isDuration, RunState, toMilliseconds } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import { requiredArg, stringOption } from '../framework/command-arguments.js';
import { watchRun } from '../views/run-watch.js';
import { terminalWidth } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

/**
 * `cyclone runs watch RUN [--interval D]`: follows the run live until it ends. Exit 0 when it
 * completed, 1 when it failed or was cancelled, 3 for an unknown run.
 */
export async function runsWatchCommand(ctx: CommandContext): Promise<number> {
  const runId = requiredArg(ctx, 0, 'runs watch', 'a run id');
  const interval = stringOption(ctx, 'interval') ?? '500ms';
  if (!isDuration(interval)) {
    throw new UsageError(
      `--interval must be a duration (250ms, 1s), got ${JSON.stringify(interval)}`,
    );
  }
  const intervalMs = Math.max(50, toMilliseconds(interval, '--interval'));
  const run = await withClient(ctx, (client) =>
    watchRun(client, runId, {
      output: ctx.output,
      json: ctx.flags.json,
      width: terminalWidth(),
      intervalMs,
    }),
  );
  if (run.state === RunState.Completed) return 0;
  if (!ctx.flags.json) {
    const why = run.errorKind
      ? ` (${run.errorKind}${run.failedNode ? ` in ${run.failedNode}` : ''})`
      : '';
    ctx.output.err(`cyclone runs watch: run ${run.id} ended ${run.state}${why}`);
  }
  return 1;
}
