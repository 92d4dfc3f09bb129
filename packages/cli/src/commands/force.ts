import { NODE_MOVE_TARGETS, type NodeMoveTarget } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

/** The `--output` JSON; absent is no output (a completion's output is then null). */
function outputOf(text: unknown): { output?: unknown } {
  if (text === undefined) return {};
  if (typeof text !== 'string') throw new UsageError('--output needs a JSON value');
  try {
    return { output: JSON.parse(text) as unknown };
  } catch (error) {
    throw new UsageError(`--output must be JSON (e.g. '{"id":1}'): ${(error as Error).message}`);
  }
}

/**
 * `cyclone force RUN NODE --to STATE [--output JSON] --reason TEXT`: moves a node by hand to
 * `completed`, `discarded` or `cancelled`, recorded forced with the reason. Exit 1 when refused
 * (the rule's reason printed), 3 for an unknown run or node, 2 for a usage error.
 */
export async function forceCommand(ctx: CommandContext): Promise<number> {
  const [runId, node] = ctx.args;
  if (!runId || !node) throw new UsageError('force needs a run id and a node name');
  const to = ctx.options.to;
  if (typeof to !== 'string' || !NODE_MOVE_TARGETS.includes(to as NodeMoveTarget)) {
    throw new UsageError(`force needs --to ${NODE_MOVE_TARGETS.join('|')}`);
  }
  const reason = ctx.options.reason;
  if (typeof reason !== 'string') throw new UsageError('force needs --reason TEXT');
  const { move, state } = await withClient(ctx, async (client) => {
    const done = await client.forceStep(runId, node, {
      to: to as NodeMoveTarget,
      reason,
      ...outputOf(ctx.options.output),
    });
    return { move: done, state: (await client.getRun(runId)).state };
  });
  if (ctx.flags.json) ctx.output.out(JSON.stringify({ ...move, runState: state }));
  else
    ctx.output.out(`forced ${node} of run ${runId}: ${move.from} -> ${move.to}; run now ${state}`);
  return 0;
}
