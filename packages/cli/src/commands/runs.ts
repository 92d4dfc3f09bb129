import { isRunState, type RunState, type RunStatus } from '@cyclone/core';
import { UsageError } from '../cli-error.js';
import { table, when } from '../output.js';
import type { CommandContext } from './context.js';
import { withClient } from './with-client.js';
import { waitingFor } from '../waiting.js';
import { describeFanOut, fanOutProgress } from '../fan-out-progress.js';

function runRows(runs: readonly RunStatus[]): string[][] {
  return runs.map((r) => [
    r.id,
    r.workflow,
    r.state,
    r.errorKind ?? '-',
    when(r.createdAt),
    r.totalRunTimeMs === null ? '-' : `${r.totalRunTimeMs}ms`,
  ]);
}

/** `cyclone runs list [--state S] [--workflow W] [--limit N]` */
export async function runsListCommand(ctx: CommandContext): Promise<number> {
  const state = ctx.options.state;
  const states: RunState[] = [];
  if (typeof state === 'string') {
    for (const s of state.split(',')) {
      if (!isRunState(s))
        throw new UsageError(
          `unknown run state "${s}": expected running, completed, failed, cancelled or paused`,
        );
      states.push(s);
    }
  }
  const limit = Number(ctx.options.limit ?? 50);
  if (!Number.isInteger(limit) || limit < 1)
    throw new UsageError(`--limit expects a whole number >= 1`);
  const page = await withClient(ctx, (client) =>
    client.listRuns({
      states,
      ...(typeof ctx.options.workflow === 'string' ? { workflow: ctx.options.workflow } : {}),
      limit,
    }),
  );
  if (ctx.flags.json) ctx.output.out(JSON.stringify(page.runs, null, 2));
  else
    ctx.output.out(
      table(['id', 'workflow', 'state', 'error kind', 'created', 'run time'], runRows(page.runs)),
    );
  return 0;
}

/**
 * `cyclone runs show RUN`: the run, its counters, what its waiting nodes wait for, and how far
 * each fan-out node has got.
 */
export async function runsShowCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.args[0];
  if (!runId) throw new UsageError('runs show needs a run id');
  const { run, steps } = await withClient(ctx, async (client) => ({
    run: await client.getRun(runId),
    steps: await client.listSteps(runId),
  }));
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify(run, null, 2));
    return 0;
  }
  const fields: [string, string][] = [
    ['id', run.id],
    ['workflow', run.workflow],
    ['state', run.state],
    ['error kind', run.errorKind ?? '-'],
    ['error', run.error ?? '-'],
    ['failed node', run.failedNode ?? '-'],
    ['failures', String(run.failureCount)],
    ['reclaims', String(run.reclaimCount)],
    ['created', when(run.createdAt)],
    ['started', when(run.startedAt)],
    ['ended', when(run.endedAt)],
    ['run time', run.totalRunTimeMs === null ? '-' : `${run.totalRunTimeMs}ms`],
  ];
  // What the run waits for: each waiting node, its signals or timer, and the time it has left.
  for (const step of steps) {
    const waiting = waitingFor(step);
    if (waiting) fields.push(['waiting', `${step.node}: ${waiting}`]);
  }
  for (const [node, progress] of fanOutProgress(steps)) {
    fields.push(['fan-out', `${node}: ${describeFanOut(progress)}`]);
  }
  for (const [k, v] of fields) ctx.output.out(`${k.padEnd(12)} ${v}`);
  return 0;
}
