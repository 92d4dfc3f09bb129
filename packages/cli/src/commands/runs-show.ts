import { requiredArg } from '../framework/command-arguments.js';
import { when } from '../terminal/output.js';
import { runGraph } from '../views/run-graph.js';
import { terminalWidth } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';
import { waitingFor } from '../views/waiting.js';
import { describeFanOut, fanOutProgress } from '../views/fan-out-progress.js';

/**
 * `cyclone runs show RUN`: the run and its counters, its parent and child runs, what its waiting
 * nodes wait for, how far each fan-out node has got, and its
 * graph: every node in topological order with its state, attempts, error kind and timing.
 * `--json` prints the run with its `steps`.
 */
export async function runsShowCommand(ctx: CommandContext): Promise<number> {
  const runId = requiredArg(ctx, 0, 'runs show', 'a run id');
  const { run, steps } = await withClient(ctx, async (client) => ({
    run: await client.getRun(runId),
    steps: await client.listSteps(runId),
  }));
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify({ ...run, steps }, null, 2));
    return 0;
  }
  const fields: [string, string][] = [
    ['id', run.id],
    ['workflow', run.workflow],
    ['state', run.state],
    ['error kind', run.errorKind ?? '-'],
    ['error', (run.error ?? '-').split('\n')[0]!],
    ['failed node', run.failedNode ?? '-'],
    [
      'parent run',
      run.parentRunId === null ? '-' : `${run.parentRunId} (step ${run.parentStepId ?? '-'})`,
    ],
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
  // The runs its child nodes started.
  for (const child of run.children ?? []) {
    fields.push(['child', `${child.node}: ${child.runId} (${child.state})`]);
  }
  for (const [k, v] of fields) ctx.output.out(`${k.padEnd(12)} ${v}`);
  const done = steps.filter((s) => s.state === 'completed').length;
  ctx.output.out(`\ngraph (${done}/${steps.length} steps completed)`);
  ctx.output.out(runGraph(steps, terminalWidth()));
  return 0;
}
