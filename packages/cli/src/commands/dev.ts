import path from 'node:path';
import pg from 'pg';
import { pino } from 'pino';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { Scheduler } from '@cyclone/scheduler';
import { Worker } from '@cyclone/worker';
import { databaseUrlFrom } from '../database-url.js';
import { startDevDatabase, type DevDatabase } from '../dev/embedded-database.js';
import { followRun } from '../dev/live-view.js';
import { sampleHandlers, sampleWorkflow } from '../dev/sample-workflow.js';
import { table } from '../output.js';
import type { CommandContext } from './context.js';

/**
 * `cyclone dev`: the whole engine on one machine. Starts an embedded PostgreSQL (or uses
 * `--database-url`), migrates it, starts a worker and the scheduler, submits the sample workflow
 * and prints its steps' states as they change, then the result.
 */
export async function devCommand(ctx: CommandContext): Promise<number> {
  const { output } = ctx;
  const dataDir = path.resolve(String(ctx.options['data-dir'] ?? path.join('.cyclone', 'dev-db')));
  let database: DevDatabase | undefined;
  let url = databaseUrlFrom(ctx.flags.databaseUrl);
  if (!url) {
    database = await startDevDatabase(dataDir, (line) => output.err(line));
    url = database.url;
    output.err(
      `embedded PostgreSQL running, data in ${path.relative(process.cwd(), dataDir) || dataDir}`,
    );
  }
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  pool.on('error', () => undefined); // an idle connection lost: the pool replaces it
  const logger = pino({ level: process.env.CYCLONE_LOG_LEVEL ?? 'warn' }, process.stderr);
  const schema = ctx.flags.schema;
  const worker = new Worker({
    pool,
    handlers: sampleHandlers,
    workflows: [sampleWorkflow],
    concurrency: 4,
    pollInterval: '250ms',
    logger,
    ...(schema === undefined ? {} : { schema }),
  });
  const scheduler = new Scheduler({
    pool,
    workflows: [sampleWorkflow],
    logger,
    ...(schema === undefined ? {} : { schema }),
  });
  const client = new Client({ pool, ...(schema === undefined ? {} : { schema }) });
  try {
    const { applied } = await migrate({ pool, ...(schema === undefined ? {} : { schema }) });
    output.err(applied === 0 ? 'schema up to date' : `applied ${applied} migration(s)`);
    await worker.start();
    await scheduler.start();
    output.err(`worker ${worker.id} and scheduler started`);

    const { runId } = await client.submit(sampleWorkflow, {
      orderId: Math.floor(Math.random() * 9000) + 1000,
    });
    output.out(`submitted run ${runId} of workflow "${sampleWorkflow.name}"\n`);
    const run = await followRun(client, runId, output);
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
      output.out(`\nthe engine keeps running (Ctrl-C stops it); from another terminal:`);
      output.out(`  npx cyclone steps ${runId} --database-url ${url}`);
      output.out(`  npx cyclone events ${runId} --database-url ${url}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
    } else {
      output.out(
        `\nrun \`npx cyclone dev --keep\` to keep the engine running and inspect the run.`,
      );
    }
    return run.state === 'completed' ? 0 : 1;
  } finally {
    await worker.stop({ timeout: '5s' });
    await scheduler.stop();
    await client.close();
    await pool.end();
    await database?.stop();
  }
}
