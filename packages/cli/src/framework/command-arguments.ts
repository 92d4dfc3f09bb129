import { isDuration, toMilliseconds } from '@cyclone/core';
import { UsageError } from './cli-error.js';
import type { CommandContext } from './context.js';

/** The positional argument at `index`, or a usage error saying what `command` needs. */
export function requiredArg(
  ctx: CommandContext,
  index: number,
  command: string,
  what: string,
): string {
  const value = ctx.args[index];
  if (!value) throw new UsageError(`${command} needs ${what}`);
  return value;
}

/** A string option, or undefined when not given. */
export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.options[name];
  return typeof value === 'string' ? value : undefined;
}

/** A whole number option within `[min, max]`, or undefined when not given. */
export function integerOption(
  ctx: CommandContext,
  name: string,
  flag: string,
  min: number,
  max: number,
): number | undefined {
  const value = ctx.options[name];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(
      `${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/**
 * A time option: an ISO 8601 date or time, or a duration (`30m`, `2h`, `1d`) meaning that long
 * before `now`.
 */
export function timeOption(
  ctx: CommandContext,
  name: string,
  flag: string,
  now = Date.now(),
): Date | undefined {
  const value = stringOption(ctx, name);
  if (value === undefined) return undefined;
  if (isDuration(value)) return new Date(now - toMilliseconds(value, flag));
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new UsageError(
      `${flag} must be an ISO 8601 time (2026-03-01T00:00:00Z) or a duration ago (30m, 2h, 1d), got ${JSON.stringify(value)}`,
    );
  }
  return date;
}
