import { UsageError } from '../framework/cli-error.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

function runArg(ctx: CommandContext, command: string): string {
  const runId = ctx.args[0];
  if (!runId) throw new UsageError(`${command} needs a run id`);
  return runId;
}

/** Prints what an operator action did, as text or `--json`, and reads the run's state back. */
function report(ctx: CommandContext, action: string, runId: string, state: string): number {
  if (ctx.flags.json) ctx.output.out(JSON.stringify({ runId, action, state }));
  else ctx.output.out(`${action} run ${runId}: now ${state}`);
  return 0;
}

/** `cyclone cancel RUN`: cancels a running or paused run. Exit 1 when refused, 3 when unknown. */
export async function cancelCommand(ctx: CommandContext): Promise<number> {
  const runId = runArg(ctx, 'cancel');
  const state = await withClient(ctx, async (client) => {
    await client.cancel(runId);
    return (await client.getRun(runId)).state;
  });
  return report(ctx, 'cancelled', runId, state);
}

/** `cyclone pause RUN`. */
export async function pauseCommand(ctx: CommandContext): Promise<number> {
  const runId = runArg(ctx, 'pause');
  const state = await withClient(ctx, async (client) => {
    await client.run(runId).pause();
    return (await client.getRun(runId)).state;
  });
  return report(ctx, 'paused', runId, state);
}

/** `cyclone resume RUN`. */
export async function resumeCommand(ctx: CommandContext): Promise<number> {
  const runId = runArg(ctx, 'resume');
  const state = await withClient(ctx, async (client) => {
    await client.run(runId).resume();
    return (await client.getRun(runId)).state;
  });
  return report(ctx, 'resumed', runId, state);
}

/** `cyclone retry RUN [NODE] | --all`: retries one discarded node, or every one with `--all`. */
export async function retryCommand(ctx: CommandContext): Promise<number> {
  const runId = runArg(ctx, 'retry');
  const node = ctx.args[1];
  const all = ctx.options.all === true;
  if (all === (node !== undefined)) throw new UsageError('retry needs a node or --all (not both)');
  const state = await withClient(ctx, async (client) => {
    if (node === undefined) await client.retryAll(runId);
    else await client.retry(runId, node);
    return (await client.getRun(runId)).state;
  });
  return report(ctx, 'retried', runId, state);
}
