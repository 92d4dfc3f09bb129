import { isRunState, type RunState, type RunStatus } from '@cyclone/core';
import { isUuid } from '@cyclone/store-postgres';
import { UsageError } from '../framework/cli-error.js';
import { integerOption, stringOption, timeOption } from '../framework/command-arguments.js';
import { table } from '../terminal/output.js';
import { terminalWidth } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

function statesOption(ctx: CommandContext): RunState[] {
  const states: RunState[] = [];
  for (const s of stringOption(ctx, 'state')?.split(',') ?? []) {
    if (!isRunState(s)) {
      throw new UsageError(
        `unknown run state "${s}": expected running, completed, failed, cancelled or paused`,
      );
    }
    states.push(s);
  }
  return states;
}

function runRows(runs: readonly RunStatus[]): string[][] {
  return runs.map((r) => [
    r.id,
    r.workflow,
    r.state,
    r.errorKind ?? '-',
    // To the second: the list is for finding a run, `runs show` has the exact times.
    r.createdAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    r.totalRunTimeMs === null ? '-' : `${r.totalRunTimeMs}ms`,
  ]);
}

/**
 * `cyclone runs list [--state S] [--workflow W] [--since T] [--until T] [--parent RUN]
 * [--limit N] [--cursor C]`: one page of runs, newest first, and the cursor of the next page.
 */
export async function runsListCommand(ctx: CommandContext): Promise<number> {
  const states = statesOption(ctx);
  const limit = integerOption(ctx, 'limit', '--limit', 1, 1000) ?? 50;
  const since = timeOption(ctx, 'since', '--since');
  const until = timeOption(ctx, 'until', '--until');
  const parent = stringOption(ctx, 'parent');
  if (parent !== undefined && !isUuid(parent)) {
    throw new UsageError(`--parent must be a run id, got ${JSON.stringify(parent)}`);
  }
  const workflow = stringOption(ctx, 'workflow');
  const cursor = stringOption(ctx, 'cursor');
  const page = await withClient(ctx, (client) =>
    client.listRuns({
      states,
      limit,
      ...(workflow === undefined ? {} : { workflow }),
      ...(since === undefined ? {} : { createdAfter: since }),
      ...(until === undefined ? {} : { createdBefore: until }),
      ...(parent === undefined ? {} : { parentRunId: parent }),
      ...(cursor === undefined ? {} : { cursor }),
    }),
  );
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify(page, null, 2));
    return 0;
  }
  ctx.output.out(
    // Only the workflow name is cut to fit: an id cut short is useless.
    table(['id', 'workflow', 'state', 'error kind', 'created', 'run time'], runRows(page.runs), {
      width: terminalWidth(),
      shrink: [1],
    }),
  );
  if (page.nextCursor) ctx.output.out(`\nnext page: --cursor ${page.nextCursor}`);
  return 0;
}
