import { isDuration, type Duration } from '@cyclone/core';
import type { OptionSpec } from '../framework/command-spec.js';
import { UsageError } from '../framework/cli-error.js';
import type { CommandContext } from '../framework/context.js';

/**
 * The scheduler's settings that `cyclone scheduler` and `cyclone worker --scheduler` both take,
 * with the same flags, environment variables and defaults, so the embedded scheduler is
 * configured as a standalone one is.
 */

/** A flag's value, else the environment variable's, else undefined (empty counts as unset). */
export function flagOrEnv(flag: unknown, variable: string | undefined): string | undefined {
  for (const value of [flag, variable]) {
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** `--name` as a duration (`1s`, `500ms`, or milliseconds as digits); `false` where `off` is allowed. */
export function durationOption(
  name: string,
  value: string | undefined,
  allowOff: boolean,
): Duration | false | undefined {
  if (value === undefined) return undefined;
  if (allowOff && (value === 'off' || value === 'false')) return false;
  const parsed = /^\d+$/.test(value) ? Number(value) : value;
  if (!isDuration(parsed)) {
    throw new UsageError(
      `${name} expects a duration such as 1s, 500ms or 7d${allowOff ? ', or off' : ''}, got "${value}"`,
    );
  }
  return parsed;
}

/** The flags of the scheduler's retention and unserved-kind grace. */
export const retentionOptions: readonly OptionSpec[] = [
  {
    flags: '--retention <duration>',
    description:
      'delete finished runs that ended longer ago; off keeps every run (default: $CYCLONE_RETENTION, else 7d)',
  },
  {
    flags: '--unserved-kind-grace <duration>',
    description:
      'discard a step no live worker serves after this long; off never does (default: $CYCLONE_UNSERVED_KIND_GRACE, else 5m)',
  },
];

/** The scheduler's retention settings, as options of `Scheduler`. */
export interface RetentionSettings {
  readonly retention?: Duration | false;
  readonly unservedKindGrace?: Duration | false;
}

/** The retention settings of a command's flags and the environment (see {@link retentionOptions}). */
export function retentionSettings(ctx: CommandContext): RetentionSettings {
  const retention = durationOption(
    '--retention',
    flagOrEnv(ctx.options.retention, process.env.CYCLONE_RETENTION),
    true,
  );
  const unservedKindGrace = durationOption(
    '--unserved-kind-grace',
    flagOrEnv(ctx.options.unservedKindGrace, process.env.CYCLONE_UNSERVED_KIND_GRACE),
    true,
  );
  return {
    ...(retention === undefined ? {} : { retention }),
    ...(unservedKindGrace === undefined ? {} : { unservedKindGrace }),
  };
}

/** How a ready line shows the retention: the duration, `off`, or the default `7d`. */
export function retentionShown(settings: RetentionSettings): string {
  return settings.retention === false ? 'off' : String(settings.retention ?? '7d');
}
