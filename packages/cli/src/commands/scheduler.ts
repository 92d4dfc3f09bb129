import { pino } from 'pino';
import { Scheduler } from '@cyclone/scheduler';
import { requireDatabaseUrl } from '../database/database-url.js';
import { openPool, reachingDatabase } from '../database/database.js';
import { poolerOptions } from '../database/pooler-options.js';
import { awaitShutdown } from '../terminal/signals.js';
import type { CommandContext } from '../framework/context.js';
import {
  durationOption,
  flagOrEnv,
  retentionSettings,
  retentionShown,
} from './scheduler-options.js';

/** Exit code when a second signal cut the stop short: 128 + the signal's number, as a shell reports it. */
const SignalNumbers: Readonly<Record<string, number>> = { SIGINT: 2, SIGTERM: 15 };

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
  const retention = retentionSettings(ctx);
  const logger = pino({ level: process.env.CYCLONE_LOG_LEVEL ?? 'info' }, process.stderr);
  const pool = openPool(url);
  const scheduler = new Scheduler({
    pool,
    logger,
    ...(ctx.flags.schema === undefined ? {} : { schema: ctx.flags.schema }),
    ...poolerOptions(ctx.flags),
    ...(interval === undefined || interval === false ? {} : { interval }),
    ...retention,
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
      retention: retentionShown(retention),
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
