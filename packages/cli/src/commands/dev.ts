import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';
import { databaseUrlFrom } from '../database/database-url.js';
import { reachingDatabase } from '../database/database.js';
import { poolerOptions } from '../database/pooler-options.js';
import { startDevDatabase, type DevDatabase } from '../dev/embedded-database.js';
import { serveDevDashboard, type DevDashboard } from '../dev/dev-dashboard.js';
import { followRun } from '../dev/live-view.js';
import { sampleHandlers, sampleWorkflow } from '../dev/sample-workflow.js';
import { table } from '../terminal/output.js';
import { awaitShutdown } from '../terminal/signals.js';
import type { CommandContext } from '../framework/context.js';
import { portOption } from '../serving/server-module.js';

/** Exit code of a run cut short by Ctrl-C, as shells report a SIGINT. */
const Interrupted = 130;

/**
 * `cyclone dev`: the whole engine on one machine. Starts an embedded PostgreSQL (or uses
 * `--database-url`), migrates it, starts a worker and the scheduler, serves the dashboard and the
 * HTTP API on http://127.0.0.1:7300 (`--port`; `--no-dashboard` leaves them out), submits the
 * sample workflow and prints its steps' states as they change, then the result. Ctrl-C stops
 * everything cleanly.
 */
export async function devCommand(ctx: CommandContext): Promise<number> {
  const { output } = ctx;
  // Checked before a database starts: a bad --port is a usage error, not a minute's wait.
  const port = ctx.options.dashboard === false ? undefined : portOption(ctx.options.port);
  const shutdown = awaitShutdown();
  let database: DevDatabase | undefined;
  try {
    let url = databaseUrlFrom(ctx.flags.databaseUrl);
    if (!url) {
      const dataDirOption = ctx.options.dataDir;
      const dataDir = path.resolve(
        typeof dataDirOption === 'string' ? dataDirOption : path.join('.cyclone', 'dev-db'),
      );
      database = await startDevDatabase(dataDir, output);
      url = database.url;
      output.err(
        `embedded PostgreSQL running on 127.0.0.1:${database.port}, data in ${path.relative(process.cwd(), dataDir) || dataDir}`,
      );
    }
    if (shutdown.signal.aborted) return Interrupted;
    return await reachingDatabase(url, () => runEngine(ctx, url, port, shutdown.signal));
  } finally {
    await database?.stop().catch(() => undefined);
    shutdown.dispose();
  }
}

async function runEngine(
  ctx: CommandContext,
  url: string,
  port: number | undefined,
  stop: AbortSignal,
): Promise<number> {
  const { output } = ctx;
  // The worker's 4 slots and its claims and completions, the scheduler, and the dashboard's reads.
  const pool = new pg.Pool({ connectionString: url, max: 12, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined); // an idle connection lost: the pool replaces it
  const logger = pino({ level: process.env.CYCLONE_LOG_LEVEL ?? 'warn' }, process.stderr);
  const schema = ctx.flags.schema === undefined ? {} : { schema: ctx.flags.schema };
  const connection = { ...schema, ...poolerOptions(ctx.flags) };
  const worker = new Worker({
    pool,
    handlers: sampleHandlers,
    workflows: [sampleWorkflow],
    concurrency: 4,
    pollInterval: '250ms',
    logger,
    // The scheduler's scanners run in the worker's process: one process is the whole engine.
    scheduler: true,
    ...connection,
  });
  const client = new Client({ pool, ...connection });
  let dashboard: DevDashboard | undefined;
  try {
    const { applied } = await migrate({ pool, ...schema });
    output.err(applied === 0 ? 'schema up to date' : `applied ${applied} migration(s)`);
    await worker.start();
    output.err(`worker ${worker.id} and scheduler started`);
    if (port !== undefined) {
      dashboard = await serveDevDashboard(client, port, logger);
      output.out(`dashboard and HTTP API at ${dashboard.url}`);
    }

    const { runId } = await client.submit(sampleWorkflow, {
      orderId: Math.floor(Math.random() * 9000) + 1000,
    });
    output.out(`submitted run ${runId} of workflow "${sampleWorkflow.name}"\n`);
    const run = await followRun(client, runId, output, stop);
    if (!run) {
      output.err('interrupted: stopping the worker, the scheduler and the database');
      return Interrupted;
    }
    output.out('');
    output.out(`run ${run.state} in ${run.totalRunTimeMs ?? '?'}ms`);
    const steps = await client.listSteps(runId);
    output.out(
      table(
        ['node', 'state', 'attempts'],
        steps.map((s) => [s.node, s.state, `${s.attempts}/${s.maxAttempts}`]),
      ),
    );
    if (run.state === 'completed') {
      output.out(`result: ${JSON.stringify(await client.result(runId))}`);
    }
    if (ctx.options.keep) {
      output.out(
        dashboard
          ? `\nthe engine keeps running (Ctrl-C stops it): open ${dashboard.url}/#/runs/${runId}, or from another terminal:`
          : `\nthe engine keeps running (Ctrl-C stops it); from another terminal:`,
      );
      output.out(`  npx cyclone steps ${runId} --database-url ${url}`);
      output.out(`  npx cyclone events ${runId} --database-url ${url}`);
      await new Promise((resolve) => stop.addEventListener('abort', resolve, { once: true }));
      output.err('stopping the worker, the scheduler and the database');
    } else {
      output.out(
        `\nrun \`npx cyclone dev --keep\` to keep the engine and the dashboard running and inspect the run.`,
      );
    }
    return run.state === 'completed' ? 0 : 1;
  } finally {
    // After Ctrl-C the terminal may have signalled the database too: shut down without noise.
    const quietly = (promise: Promise<unknown>) =>
      promise.catch((error: unknown) => {
        if (!stop.aborted) throw error;
      });
    await quietly(dashboard?.close() ?? Promise.resolve());
    await quietly(worker.stop({ timeout: '5s' }));
    await quietly(client.close());
    await quietly(pool.end());
  }
}
