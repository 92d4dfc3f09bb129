import { UsageError } from '../framework/cli-error.js';
import type { CommandContext } from '../framework/context.js';
import { withClient } from './with-client.js';

/** Parses the optional JSON payload argument; a missing one is `null`. */
function payloadOf(text: string | undefined): unknown {
  if (text === undefined) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(
      `the payload must be JSON (e.g. '{"approved":true}' or '"yes"'): ${(error as Error).message}`,
    );
  }
}

/**
 * `cyclone signal RUN NAME [JSON] [--id ID]`: sends a signal. A node waiting for it consumes it
 * at once; otherwise it is kept for the first node that waits for it. Exit 3 for an unknown run,
 * 1 for a terminal run or an invalid name or payload, 2 for a payload that is not JSON.
 */
export async function signalCommand(ctx: CommandContext): Promise<number> {
  const [runId, name, json] = ctx.args;
  if (!runId || !name) throw new UsageError('signal needs a run id and a signal name');
  const payload = payloadOf(json);
  const id = typeof ctx.options.id === 'string' ? ctx.options.id : undefined;
  const receipt = await withClient(ctx, (client) =>
    client.signal(runId, name, payload, id === undefined ? {} : { id }),
  );
  if (ctx.flags.json) ctx.output.out(JSON.stringify(receipt));
  else if (receipt.duplicate)
    ctx.output.out(`signal ${name} with id ${id} was already delivered; nothing sent`);
  else if (receipt.consumedBy)
    ctx.output.out(`signal ${name} delivered: consumed by ${receipt.consumedBy}`);
  else ctx.output.out(`signal ${name} delivered: kept until a node waits for it`);
  return 0;
}
