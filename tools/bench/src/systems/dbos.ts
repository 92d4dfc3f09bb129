/**
 * DBOS Transact: a job is a no-op workflow enqueued on a database-backed queue (`DBOSClient`),
 * executed by a launched DBOS process whose queue has `workerConcurrency` = the concurrency.
 * Default configuration: the queue's default polling (1 s minimum interval). Fast:
 * `minPollingIntervalMs` lowered (see `fastPollingMs`). Workflows use the functional API
 * (`DBOS.registerWorkflow` + `DBOS.runStep`). DBOS has no bulk enqueue: the bulk path enqueues
 * with `enqueueInTransaction`, many per transaction.
 */
import pg from 'pg';
import { DBOS, DBOSClient } from '@dbos-inc/dbos-sdk';
import { cloneRows, scalar, sleep } from '../shared/db.js';
import { systemMeta } from './meta.js';
import type { ConfigName, SystemAdapter, WorkerConfig, WorkflowShape } from '../shared/types.js';

const app = 'cyclone-bench';
const queue = 'bench';
const enqueueChunk = 1_000;
/** The fast configuration's `minPollingIntervalMs` (the default is 1000). */
export const fastPollingMs = 10;

/** DBOS logger interface, silenced. */
const silent = {
  info: () => undefined,
  debug: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

const noStep = (): Promise<null> => Promise.resolve(null);

/** The handler of the current process's job workflow (DBOS registers functions once, globally). */
let jobStarted: ((i: number) => void) | undefined;
let registered = false;

function registerWorkflows(): void {
  if (registered) return;
  registered = true;
  DBOS.registerWorkflow(
    (i: number) => {
      jobStarted?.(i);
      return Promise.resolve(null);
    },
    { name: 'job' },
  );
  DBOS.registerWorkflow(
    async () => {
      await DBOS.runStep(noStep, { name: 'a' });
      await DBOS.runStep(noStep, { name: 'b' });
      await DBOS.runStep(noStep, { name: 'c' });
      return null;
    },
    { name: 'chain' },
  );
  DBOS.registerWorkflow(
    async () => {
      await DBOS.runStep(noStep, { name: 'root' });
      await Promise.all(
        Array.from({ length: 8 }, (_, k) => DBOS.runStep(noStep, { name: `p${k + 1}` })),
      );
      await DBOS.runStep(noStep, { name: 'join' });
      return null;
    },
    { name: 'diamond' },
  );
}

export class DbosAdapter implements SystemAdapter {
  readonly name = 'dbos';
  readonly configs = systemMeta['dbos'].configs;
  readonly shapes = systemMeta['dbos'].shapes;
  private client: DBOSClient | undefined;
  private txPool: pg.Pool | undefined;
  private launched = false;

  constructor(
    private readonly url: string,
    private readonly poolSize: number,
  ) {}

  describe(config: ConfigName, concurrency: number): string {
    const base = `DBOS.launch({ systemDatabasePoolSize: ${this.poolSize} }); queue { workerConcurrency: ${concurrency}`;
    return config === 'fast'
      ? `${base}, minPollingIntervalMs: ${fastPollingMs} }`
      : `${base} } (polling 1 s)`;
  }

  private get pool(): pg.Pool {
    if (!this.txPool) {
      this.txPool = new pg.Pool({ connectionString: this.url, max: this.poolSize });
      this.txPool.on('error', () => undefined);
    }
    return this.txPool;
  }

  private async getClient(): Promise<DBOSClient> {
    this.client ??= await DBOSClient.create({
      systemDatabaseUrl: this.url,
      systemDatabasePoolSize: this.poolSize,
      logger: silent,
      applicationName: app,
    });
    return this.client;
  }

  async setup(): Promise<void> {
    await DBOS.migrate(this.url);
    const client = await this.getClient();
    if (!(await client.retrieveQueue(queue))) await client.registerQueue(queue);
  }

  /** Many `enqueueInTransaction` calls per transaction: one commit for a chunk, not one per job. */
  private async enqueueChunked(
    workflowName: string,
    n: number,
    args: (k: number) => unknown[],
  ): Promise<void> {
    const client = await this.getClient();
    for (let start = 0; start < n; start += enqueueChunk) {
      const conn = await this.pool.connect();
      try {
        await conn.query('BEGIN');
        const end = Math.min(n, start + enqueueChunk);
        for (let k = start; k < end; k++) {
          await client.enqueueInTransaction(conn, { workflowName, queueName: queue }, ...args(k));
        }
        await conn.query('COMMIT');
      } catch (error) {
        await conn.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        conn.release();
      }
    }
  }

  bulkEnqueue(n: number): Promise<void> {
    return this.enqueueChunked('job', n, (k) => [k]);
  }

  async enqueueOne(i: number): Promise<void> {
    await (await this.getClient()).enqueue({ workflowName: 'job', queueName: queue }, i);
  }

  submitWorkflows(shape: WorkflowShape, n: number): Promise<void> {
    return this.enqueueChunked(shape, n, () => []);
  }

  async startWorker(config: WorkerConfig): Promise<void> {
    jobStarted = config.onJobStart;
    registerWorkflows();
    // Configure the queue before launch, so that the dispatcher finds its final settings.
    await (
      await this.getClient()
    ).registerQueue(queue, {
      workerConcurrency: config.concurrency,
      ...(config.config === 'fast' ? { minPollingIntervalMs: fastPollingMs } : {}),
      onConflict: 'always_update',
    });
    DBOS.setConfig({
      name: app,
      systemDatabaseUrl: this.url,
      systemDatabasePoolSize: this.poolSize,
      logger: silent,
    });
    await DBOS.launch();
    this.launched = true;
  }

  async stopWorker(): Promise<void> {
    if (!this.launched) return;
    this.launched = false;
    await DBOS.shutdown();
  }

  countCompleted(): Promise<number> {
    return scalar(
      this.pool,
      `SELECT count(*) AS n FROM dbos.workflow_status WHERE name = 'job' AND status = 'SUCCESS'`,
    );
  }

  countWorkflowsCompleted(shape: WorkflowShape): Promise<number> {
    return scalar(
      this.pool,
      `SELECT count(*) AS n FROM dbos.workflow_status WHERE name = $1 AND status = 'SUCCESS'`,
      [shape],
    );
  }

  /** One job run for real by a launched DBOS, then its rows in every `dbos` table cloned. */
  async fillFinished(rows: number): Promise<void> {
    const handle = await (
      await this.getClient()
    ).enqueue({ workflowName: 'job', queueName: queue }, -1);
    const id = handle.workflowID;
    await this.startWorker({ concurrency: 1, config: 'fast' });
    try {
      const deadline = Date.now() + 30_000;
      while ((await this.countCompleted()) < 1) {
        if (Date.now() > deadline)
          throw new Error('the DBOS filler template workflow did not complete');
        await sleep(50);
      }
    } finally {
      await this.stopWorker();
    }
    const { rows: tables } = await this.pool.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
        WHERE table_schema = 'dbos' AND column_name = 'workflow_uuid'
        ORDER BY table_name = 'workflow_status' DESC, table_name`,
    );
    for (const { table_name: table } of tables) {
      await cloneRows(this.pool, {
        schema: 'dbos',
        table,
        where: 'workflow_uuid = $1',
        whereParams: [id],
        n: rows,
        overrides: { workflow_uuid: `'bench-filler-' || g` },
      });
    }
  }

  async close(): Promise<void> {
    await this.stopWorker();
    await this.client?.destroy();
    this.client = undefined;
    await this.txPool?.end();
    this.txPool = undefined;
  }
}
