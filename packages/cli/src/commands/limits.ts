import {
  MaxConcurrencyLimit,
  MaxRateLimit,
  MaxRatePeriodMs,
  type ConcurrencyLimit,
  type RateLimit,
} from '@cyclone/client';
import { isDuration, NotFoundError, toMilliseconds, type Duration } from '@cyclone/core';
import { UsageError } from '../framework/cli-error.js';
import type { CommandContext } from '../framework/context.js';
import { limitsTable, periodText } from '../views/limits-table.js';
import { withClient } from './with-client.js';

/** Which limit of a kind a command names: its concurrency cap or its rate limit. */
type Which = 'concurrency' | 'rate';

function which(ctx: CommandContext, command: string): Which {
  const value = ctx.args[0];
  if (value !== 'concurrency' && value !== 'rate') {
    throw new UsageError(
      `limits ${command} needs concurrency or rate first, got ${JSON.stringify(value ?? '')}`,
    );
  }
  return value;
}

function kindArgument(ctx: CommandContext, command: string): string {
  const kind = ctx.args[1];
  if (!kind) throw new UsageError(`limits ${command} needs a handler kind`);
  return kind;
}

/** A whole number from 1 to `max` given to `flag`. */
function wholeNumber(value: unknown, flag: string, max: number): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new UsageError(
      `${flag} expects a whole number from 1 to ${max}, got ${JSON.stringify(value ?? '')}`,
    );
  }
  return n;
}

/** `--period`: milliseconds (`500`) or a duration (`2s`, `1m`), from 1 ms to 30 days. */
function periodOption(value: unknown): Duration {
  const period: unknown = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (
    !isDuration(period) ||
    toMilliseconds(period) < 1 ||
    toMilliseconds(period) > MaxRatePeriodMs
  ) {
    throw new UsageError(
      `--period expects milliseconds or a duration such as 500ms, 2s, 1m, 1h, from 1 ms to 30 days, got ${JSON.stringify(value ?? '')}`,
    );
  }
  return period;
}

/** Refuses a flag of the other kind of limit, so a typo never sets something else. */
function refuseFlags(ctx: CommandContext, flags: readonly string[], of: Which): void {
  for (const flag of flags) {
    const name = flag.slice(2);
    if (ctx.options[name] !== undefined) {
      throw new UsageError(
        `${flag} is not an option of a ${of} limit (concurrency: --max; rate: --limit and --period)`,
      );
    }
  }
}

const perKeyText = (perKey: boolean) => (perKey ? ' per concurrency key' : '');

/** `cyclone limits list`: every concurrency cap and rate limit, by kind. */
export async function limitsListCommand(ctx: CommandContext): Promise<number> {
  const [concurrency, rate] = await withClient(ctx, (client) =>
    Promise.all([client.listConcurrencyLimits(), client.listRateLimits()]),
  );
  if (ctx.flags.json) {
    ctx.output.out(JSON.stringify({ concurrency, rate }, null, 2));
    return 0;
  }
  ctx.output.out(limitsTable(concurrency, rate));
  return 0;
}

/**
 * `cyclone limits set concurrency KIND --max N [--per-key]` and `cyclone limits set rate KIND
 * --limit N --period D [--per-key]`: creates or replaces the limit (the kind's other one stays).
 */
export async function limitsSetCommand(ctx: CommandContext): Promise<number> {
  const of = which(ctx, 'set');
  const kind = kindArgument(ctx, 'set');
  const perKey = ctx.options.perKey === true;
  let limit: ConcurrencyLimit | RateLimit | undefined;
  let text: string;
  if (of === 'concurrency') {
    refuseFlags(ctx, ['--limit', '--period'], of);
    const max = wholeNumber(ctx.options.max, '--max', MaxConcurrencyLimit);
    limit = await withClient(ctx, async (client) => {
      await client.setConcurrencyLimit({ kind, max, perKey });
      return (await client.listConcurrencyLimits()).find((l) => l.kind === kind);
    });
    text = `${kind}: at most ${max} running${perKeyText(perKey)}`;
  } else {
    refuseFlags(ctx, ['--max'], of);
    const most = wholeNumber(ctx.options.limit, '--limit', MaxRateLimit);
    const period = periodOption(ctx.options.period);
    limit = await withClient(ctx, async (client) => {
      await client.setRateLimit({ kind, limit: most, period, perKey });
      return (await client.listRateLimits()).find((l) => l.kind === kind);
    });
    text = `${kind}: at most ${most} starts per ${periodText(period)}${perKeyText(perKey)}`;
  }
  if (ctx.flags.json) ctx.output.out(JSON.stringify(limit, null, 2));
  else ctx.output.out(`set the ${of} limit of ${text}`);
  return 0;
}

/** `cyclone limits remove concurrency|rate KIND`: exit 3 when the kind has no such limit. */
export async function limitsRemoveCommand(ctx: CommandContext): Promise<number> {
  const of = which(ctx, 'remove');
  const kind = kindArgument(ctx, 'remove');
  const removed = await withClient(ctx, (client) =>
    of === 'concurrency' ? client.removeConcurrencyLimit(kind) : client.removeRateLimit(kind),
  );
  if (!removed) throw new NotFoundError(`${of} limit`, kind);
  if (ctx.flags.json) ctx.output.out(JSON.stringify({ kind, removed: of }));
  else ctx.output.out(`removed the ${of} limit of ${kind}`);
  return 0;
}
