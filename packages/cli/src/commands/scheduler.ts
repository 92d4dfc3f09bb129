import { pino } from 'pino';
import { isDuration, type Duration } from '@cyclone/core';
import { Scheduler } from '@cyclone/scheduler';
import { UsageError } from '../framework/cli-error.js';
import { requireDatabaseUrl } from '../database/database-url.js';
import { openPool, reachingDatabase } from '../database/database.js';
import { poolerOptions } from '../database/pooler-options.js';
import { awaitShutdown } from '../terminal/signals.js';
import type { CommandContext } from '../framework/context.js';

/** Exit code when a second signal cut the stop short: 128 + the signal's number, as a shell reports it. */
const SignalNumbers: Readonly<Record<string, number>> = { SIGINT: 2, SIGTERM: 15 };

/** A flag's value, else the environment variable's, else undefined (empty counts as unset). */
function flagOrEnv(flag: unknown, variable: string | undefined): string | undefined {
  for (const value of [flag, variable]) {
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** `--name` as a duration (`1s`, `500ms`, or milliseconds as digits); `false` where `off` is allowed. */
function durationOption(
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

/**
 * `cyclone scheduler`: a scheduler process (the time-driven scanners, one leader among replicas).
 * Runs until SIGTERM or SIGINT, then stops scanning and gives up the leader lease at once, so
 * another replica takes over at its next interval; a second signal exits at once.
 */
export async function schedulerCommand(ctx: CommandContext): Promise<number> {
  const { output } = ctx;
  const url = requireDatabaseUrl(ctx.flags.databaseUrl);
  const interval = durationOption(
    '--interval',
    flagOrEnv(ctx.options.interval, process.env.CYCLONE_SCHEDULER_INTERVAL),
    false,
  );
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
  const logger = pino({ level: process.env.CYCLONE_LOG_LEVEL ?? 'info' }, process.stderr);
  const pool = openPool(url);
  const scheduler = new Scheduler({
    pool,
    logger,
    ...(ctx.flags.schema === undefined ? {} : { schema: ctx.flags.schema }),
    ...poolerOptions(ctx.flags),
    ...(interval === undefined || interval === false ? {} : { interval }),
    ...(retention === undefined ? {} : { retention }),
    ...(unservedKindGrace === undefined ? {} : { unservedKindGrace }),
  });
  const print = (event: string, fields: Record<string, string | number>) =>
    output.out(
      ctx.flags.json
        ? JSON.stringify({ event, ...fields })
        : [
            `scheduler ${event}`,
            ...Object.entries(fields).map(([k, v]) => `${k}=${String(v)}`),
          ].join(' '),
    );

  const shutdown = awaitShutdown((signal) => {
    print('forced', { id: scheduler.id, signal });
    // The lease was not given up: another replica takes over once it lapses (five intervals).
    process.exit(128 + (SignalNumbers[signal] ?? 15));
  });
  try {
    await reachingDatabase(url, () => scheduler.start());
    print('ready', {
      id: scheduler.id,
      interval: String(interval ?? '1s'),
      retention: retention === false ? 'off' : String(retention ?? '7d'),
      pid: process.pid,
    });
    const signal = await shutdown.signalled;
    print('stopping', { id: scheduler.id, signal });
    await scheduler.stop();
    print('stopped', { id: scheduler.id });
    return 0;
  } finally {
    await scheduler.stop().catch(() => undefined);
    await pool.end().catch(() => undefined);
    shutdown.dispose();
  }
}
