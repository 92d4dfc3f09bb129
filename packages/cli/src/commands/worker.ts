import { pino } from 'pino';
import { isDuration } from '@cyclone/core';
import { Scheduler } from '@cyclone/scheduler';
import { Worker } from '@cyclone/worker';
import { UsageError } from '../framework/cli-error.js';
import { requireDatabaseUrl } from '../database/database-url.js';
import { openPool, reachingDatabase } from '../database/database.js';
import { poolerOptions } from '../database/pooler-options.js';
import { awaitShutdown } from '../terminal/signals.js';
import { loadHandlerModule } from '../worker/handler-module.js';
import type { CommandContext } from '../framework/context.js';
import { retentionSettings, retentionShown } from './scheduler-options.js';

/** Signal numbers, for the exit code of a stop a second signal cut short: 128 + the number. */
const SignalNumbers: Readonly<Record<string, number>> = { SIGINT: 2, SIGTERM: 15 };

/** After a second signal, the process exits after at most this long, even if the stop hangs. */
const ForcedExitMs = 5_000;

/**
 * `cyclone worker --handlers MODULE`: a production worker process. Runs until SIGTERM or SIGINT,
 * then stops claiming and lets in-flight steps finish for `--grace` before releasing them. A
 * second signal cuts the grace short as `handleSignals` does: it aborts the handlers, releases the
 * steps whose handlers settle, and exits with 128 + the signal number (a step whose handler
 * ignores the abort comes back when its lease expires).
 */
export async function workerCommand(ctx: CommandContext): Promise<number> {
  const { output } = ctx;
  const url = requireDatabaseUrl(ctx.flags.databaseUrl);
  const concurrency = Number(ctx.options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new UsageError('--concurrency expects a whole number >= 1');
  }
  const grace = String(ctx.options.grace);
  const graceValue = /^\d+$/.test(grace) ? Number(grace) : grace;
  if (!isDuration(graceValue)) {
    throw new UsageError(`--grace expects a duration such as 10s, 500ms or 2m, got "${grace}"`);
  }
  const retention = retentionSettings(ctx);
  if (!ctx.options.scheduler) {
    for (const flag of ['retention', 'unservedKindGrace'] as const) {
      if (ctx.options[flag] !== undefined) {
        const name = flag === 'retention' ? '--retention' : '--unserved-kind-grace';
        throw new UsageError(`${name} sets the embedded scheduler: it needs --scheduler`);
      }
    }
  }
  const module = await loadHandlerModule(String(ctx.options.handlers));
  const connection = {
    ...(ctx.flags.schema === undefined ? {} : { schema: ctx.flags.schema }),
    ...poolerOptions(ctx.flags),
  };
  const logger = pino({ level: process.env.CYCLONE_LOG_LEVEL ?? 'info' }, process.stderr);
  const pool = openPool(url, concurrency + 4);
  const worker = new Worker({
    pool,
    handlers: module.handlers,
    workflows: module.workflows,
    concurrency,
    logger,
    ...connection,
  });
  const scheduler = ctx.options.scheduler
    ? new Scheduler({ pool, workflows: module.workflows, logger, ...connection, ...retention })
    : undefined;
  const print = (event: string, fields: Record<string, string | number | readonly string[]>) =>
    output.out(
      ctx.flags.json
        ? JSON.stringify({ event, ...fields })
        : [
            `worker ${event}`,
            ...Object.entries(fields).map(
              ([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`,
            ),
          ].join(' '),
    );

  const shutdown = awaitShutdown((signal) => {
    print('forced', { id: worker.id, signal });
    const code = 128 + (SignalNumbers[signal] ?? 15);
    setTimeout(() => process.exit(code), ForcedExitMs).unref();
    void worker
      .stopNow()
      .then(() => scheduler?.stop())
      .catch(() => undefined)
      .finally(() => process.exit(code));
  });
  let started = false;
  try {
    await reachingDatabase(url, async () => {
      await worker.start();
      started = true;
      await scheduler?.start();
    });
    print('ready', {
      id: worker.id,
      kinds: Object.keys(module.handlers),
      concurrency,
      scheduler: scheduler ? 'on' : 'off',
      ...(scheduler ? { retention: retentionShown(retention) } : {}),
      pid: process.pid,
    });
    const signal = await shutdown.signalled;
    print('stopping', { id: worker.id, signal, grace });
    await worker.stop({ timeout: graceValue });
    await scheduler?.stop();
    print('stopped', { id: worker.id });
    return 0;
  } finally {
    // After a failed start, what did start is stopped; a worker that never started has nothing
    // to deregister (and trying would log a second error about the same unreachable database).
    if (started) await worker.stop({ timeout: 0 }).catch(() => undefined);
    await scheduler?.stop().catch(() => undefined);
    await pool.end().catch(() => undefined);
    shutdown.dispose();
  }
}
