/**
 * pg-boss (10.x, the last line that supports Node 20): jobs with `boss.insert()` (bulk), workers
 * with `boss.work()`. Default configuration: `concurrency` calls of `work(queue, handler)` (batch
 * size 1, polling every 2 s). Fast: one `work(queue, { batchSize: concurrency,
 * pollingIntervalSeconds: 0.5 })` (0.5 s is the smallest interval pg-boss accepts). pg-boss has no
 * LISTEN/NOTIFY: a worker sleeps for its polling interval after every fetch, found jobs or not.
 */
import PgBoss from 'pg-boss';
import pg from 'pg';
import { cloneRows, scalar } from '../shared/db.js';
import { systemMeta } from './meta.js';
import type { ConfigName, SystemAdapter, WorkerConfig, WorkflowShape } from '../shared/types.js';

const queue = 'bench';
const chainQueues = ['chain_a', 'chain_b', 'chain_c'] as const;
const enqueueChunk = 5_000;
const fastPollingSeconds = 0.5;

export class PgBossAdapter implements SystemAdapter {
  readonly name = 'pg-boss';
  readonly configs = systemMeta['pg-boss'].configs;
  readonly shapes = systemMeta['pg-boss'].shapes;
  private client: PgBoss | undefined;
  private worker: PgBoss | undefined;
  private admin: pg.Pool | undefined;

  constructor(
    private readonly url: string,
    private readonly poolSize: number,
  ) {}

  describe(config: ConfigName, concurrency: number): string {
    return config === 'fast'
      ? `new PgBoss({ max: ${this.poolSize} }); work(queue, { batchSize: ${concurrency}, pollingIntervalSeconds: ${fastPollingSeconds} }) once`
      : `new PgBoss({ max: ${this.poolSize} }); work(queue, handler) x ${concurrency} (batchSize 1, polling 2 s)`;
  }

  private get pool(): pg.Pool {
    if (!this.admin) {
      this.admin = new pg.Pool({ connectionString: this.url, max: 2 });
      this.admin.on('error', () => undefined);
    }
    return this.admin;
  }

  /** A pg-boss instance for sending only: no maintenance, no cron. */
  private async getClient(): Promise<PgBoss> {
    if (!this.client) {
      const boss = new PgBoss({
        connectionString: this.url,
        max: this.poolSize,
        supervise: false,
        schedule: false,
      });
      boss.on('error', () => undefined);
      await boss.start();
      this.client = boss;
    }
    return this.client;
  }

  async setup(): Promise<void> {
    const boss = await this.getClient();
    for (const name of [queue, ...chainQueues]) {
      if (!(await boss.getQueue(name))) await boss.createQueue(name);
    }
  }

  async bulkEnqueue(n: number): Promise<void> {
    const boss = await this.getClient();
    for (let start = 0; start < n; start += enqueueChunk) {
      const jobs = Array.from({ length: Math.min(enqueueChunk, n - start) }, (_, k) => ({
        name: queue,
        data: { i: start + k },
      }));
      await boss.insert(jobs);
    }
  }

  async enqueueOne(i: number): Promise<void> {
    await (await this.getClient()).send(queue, { i });
  }

  async submitWorkflows(shape: WorkflowShape, n: number): Promise<void> {
    if (shape !== 'chain') throw new Error(`pg-boss has no ${shape} workflow here`);
    const boss = await this.getClient();
    for (let start = 0; start < n; start += enqueueChunk) {
      const jobs = Array.from({ length: Math.min(enqueueChunk, n - start) }, (_, k) => ({
        name: 'chain_a',
        data: { i: start + k },
      }));
      await boss.insert(jobs);
    }
  }

  async startWorker(config: WorkerConfig): Promise<void> {
    const onJobStart = config.onJobStart;
    const boss = new PgBoss({ connectionString: this.url, max: this.poolSize });
    boss.on('error', () => undefined);
    await boss.start();
    this.worker = boss;
    const fast = config.config === 'fast';
    const options = fast
      ? { batchSize: config.concurrency, pollingIntervalSeconds: fastPollingSeconds }
      : {};
    const workers = fast ? 1 : config.concurrency;
    const work = async (
      name: string,
      handler: (jobs: PgBoss.Job<{ i: number }>[]) => Promise<void>,
    ) => {
      for (let w = 0; w < workers; w++) await boss.work<{ i: number }>(name, options, handler);
    };
    if (config.shape === 'chain') {
      // A chain: each step's handler enqueues the next one.
      await work('chain_a', async (jobs) => {
        await boss.insert(jobs.map((job) => ({ name: 'chain_b', data: job.data })));
      });
      await work('chain_b', async (jobs) => {
        await boss.insert(jobs.map((job) => ({ name: 'chain_c', data: job.data })));
      });
      await work('chain_c', () => Promise.resolve());
    } else {
      await work(queue, (jobs) => {
        if (onJobStart) for (const job of jobs) onJobStart(job.data.i);
        return Promise.resolve();
      });
    }
  }

  async stopWorker(): Promise<void> {
    const boss = this.worker;
    this.worker = undefined;
    await boss?.stop({ graceful: true, wait: true, timeout: 5_000 });
  }

  countCompleted(): Promise<number> {
    return scalar(
      this.pool,
      `SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'`,
      [queue],
    );
  }

  countWorkflowsCompleted(shape: WorkflowShape): Promise<number> {
    if (shape !== 'chain') return Promise.resolve(0);
    return scalar(
      this.pool,
      `SELECT count(*) AS n FROM pgboss.job WHERE name = 'chain_c' AND state = 'completed'`,
    );
  }

  /** One real job (sent, fetched, completed), cloned as completed rows of the same queue. */
  async fillFinished(rows: number): Promise<void> {
    const boss = await this.getClient();
    const id = await boss.send(queue, { i: -1 });
    const [job] = await boss.fetch(queue);
    if (!id || !job || job.id !== id)
      throw new Error('the pg-boss filler template job was not fetched');
    await boss.complete(queue, id);
    await cloneRows(this.pool, {
      schema: 'pgboss',
      table: 'job',
      where: `id = $1 AND name = '${queue}' AND state = 'completed'`,
      whereParams: [id],
      n: rows,
      overrides: { id: null },
    });
  }

  async close(): Promise<void> {
    await this.stopWorker();
    await this.client?.stop({ graceful: false, wait: true, timeout: 1_000 });
    this.client = undefined;
    await this.admin?.end();
    this.admin = undefined;
  }
}
