import { stepLabel } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import { table } from '../terminal/output.js';
import { terminalWidth } from '../terminal/terminal.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';
import { waitingFor } from '../views/waiting.js';
import { describeFanOut, fanOutProgress } from '../views/fan-out-progress.js';

/**
 * `cyclone steps RUN`: the run's steps with their states (database values), labels, what each
 * waiting node waits for and how long it has left, each fan-out node's progress, and the child
 * run of each child node.
 */
export async function stepsCommand(ctx: CommandContext): Promise<number> {
  const runId = ctx.args[0];
  if (!runId) throw new UsageError('steps needs a run id');
  const steps = await withClient(ctx, (client) => client.listSteps(runId));
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify(steps, null, 2));
    return 0;
  }
  const fanOuts = fanOutProgress(steps);
  const progressOf = (s: (typeof steps)[number]) => {
    const p = s.itemIndex === null ? fanOuts.get(s.node) : undefined;
    return p ? describeFanOut(p) : undefined;
  };
  ctx.output.out(
    table(
      [
        'node',
        'type',
        'state',
        'label',
        'attempts',
        'reclaims',
        'waiting for',
        'child run',
        'error kind',
        'error',
      ],
      steps.map((s) => [
        s.itemIndex === null ? s.node : `${s.node}[${s.itemIndex}]`,
        s.nodeType,
        s.state,
        stepLabel(s) ?? '-',
        `${s.attempts}/${s.maxAttempts}`,
        String(s.reclaims),
        waitingFor(s) ?? progressOf(s) ?? '-',
        s.childRunId ?? '-',
        s.errorKind ?? '-',
        (s.error ?? '-').split('\n')[0]!.slice(0, 80),
      ]),
      { width: terminalWidth(), shrink: [8] },
    ),
  );
  return 0;
}
