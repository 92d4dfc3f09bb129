import { MaxFairShareWeight } from '@cyclone/client';
import { NotFoundError } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import type { CommandContext } from '../framework/context.js';
import { fairShareTable } from '../views/fair-share-table.js';
import { withClient } from './with-client.js';

function kindArgument(ctx: CommandContext, command: string): string {
  const kind = ctx.args[0];
  if (!kind) throw new UsageError(`fair-share ${command} needs a handler kind`);
  return kind;
}

/** `--weights tenant-a=3,tenant-b=2`: a whole number from 1 to 1,000 for each key named. */
function weightsOption(value: unknown): Record<string, number> {
  if (value === undefined) return {};
  const expected = `--weights expects key=weight pairs separated by commas (a weight from 1 to ${MaxFairShareWeight}), got ${JSON.stringify(value)}`;
  if (typeof value !== 'string' || value === '') throw new UsageError(expected);
  const weights: Record<string, number> = {};
  for (const pair of value.split(',')) {
    const at = pair.lastIndexOf('=');
    const key = pair.slice(0, at);
    const weight = pair.slice(at + 1);
    const n = /^\d+$/.test(weight) ? Number(weight) : NaN;
    if (at <= 0 || !Number.isSafeInteger(n) || n < 1 || n > MaxFairShareWeight) {
      throw new UsageError(expected);
    }
    weights[key] = n;
  }
  return weights;
}

/** `cyclone fair-share list`: every kind under fair share, with its weights and keys waiting. */
export async function fairShareListCommand(ctx: CommandContext): Promise<number> {
  const fairShares = await withClient(ctx, (client) => client.listFairShares());
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify({ fairShares }, null, 2));
    return 0;
  }
  ctx.output.out(fairShareTable(fairShares));
  return 0;
}

/** `cyclone fair-share set KIND [--weights key=n,...]`: puts the kind under fair share. */
export async function fairShareSetCommand(ctx: CommandContext): Promise<number> {
  const kind = kindArgument(ctx, 'set');
  const weights = weightsOption(ctx.options.weights);
  const fairShare = await withClient(ctx, async (client) => {
    await client.setFairShare({ kind, weights });
    return (await client.listFairShares()).find((f) => f.kind === kind);
  });
  if (ctx.flags.json) ctx.output.out(JSON.stringify(fairShare, null, 2));
  else {
    const named = Object.entries(weights).map(([key, n]) => `${key}=${n}`);
    ctx.output.out(
      `${kind} is under fair share: its keys take turns${named.length > 0 ? ` (weights ${named.join(', ')}; others 1)` : ''}`,
    );
  }
  return 0;
}

/** `cyclone fair-share remove KIND`: exit 3 when the kind is not under fair share. */
export async function fairShareRemoveCommand(ctx: CommandContext): Promise<number> {
  const kind = kindArgument(ctx, 'remove');
  const removed = await withClient(ctx, (client) => client.removeFairShare(kind));
  if (!removed) throw new NotFoundError('fair share', kind);
  if (ctx.flags.json) ctx.output.out(JSON.stringify({ kind, removed: 'fair-share' }));
  else ctx.output.out(`removed the fair share of ${kind}: its steps are claimed oldest first`);
  return 0;
}
