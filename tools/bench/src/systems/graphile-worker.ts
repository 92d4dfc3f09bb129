/**
 * graphile-worker: jobs with `workerUtils.addJobs` (the `add_jobs` bulk function), one `run()`
 * runner. Default configuration: `concurrency`, `maxPoolSize` and the logger only. Fast: the
 * performance page's batching options, `localQueue: { size: 500 }` and
 * `completeJobBatchDelay`/`failJobBatchDelay: 0`. Completed jobs are deleted, so the completed
 * count is the job id sequence minus the rows left.
 */
import pg from 'pg';
import {
  Logger,
  makeWorkerUtils,
  run,
  runMigrations,
  type Runner,
  type Task,
  type TaskList,
  type WorkerUtils,
} from 'graphile-worker';
import { cloneRows, scalar } from '../shared/db.js';
import { systemMeta } from './meta.js';
import type { ConfigName, SystemAdapter, WorkerConfig, WorkflowShape } from '../shared/types.js';

const schema = 'graphile_worker';
const jobTask = 'noop';
const enqueueChunk = 5_000;
const localQueueSize = 500;
const silent = new Logger(() => () => undefined);

export class GraphileWorkerAdapter implements SystemAdapter {
  readonly name = 'graphile-worker';
  readonly configs = systemMeta['graphile-worker'].configs;
  readonly shapes = systemMeta['graphile-worker'].shapes;
  private utils: WorkerUtils | undefined;
  private admin: pg.Pool | undefined;
  private runner: Runner | undefined;
  private jobsSequence: string | undefined;

  constructor(
    private readonly url: string,
    private readonly poolSize: number,
  ) {}

  describe(config: ConfigName, concurrency: number): string {
    const base = `run({ concurrency: ${concurrency}, maxPoolSize: ${this.poolSize} })`;
    return config === 'fast'
      ? `${base} + preset.worker { localQueue: { size: ${localQueueSize} }, completeJobBatchDelay: 0, failJobBatchDelay: 0 }`
      : base;
  }

  async setup(): Promise<void> {
    await runMigrations({ connectionString: this.url, logger: silent });
  }

  private async getUtils(): Promise<WorkerUtils> {
    this.utils ??= await makeWorkerUtils({
      connectionString: this.url,
      logger: silent,
      maxPoolSize: this.poolSize,
    });
    return this.utils;
  }

  private get pool(): pg.Pool {
    if (!this.admin) {
      this.admin = new pg.Pool({ connectionString: this.url, max: 2 });
      this.admin.on('error', () => undefined);
    }
    return this.admin;
  }

  async bulkEnqueue(n: number): Promise<void> {
    const utils = await this.getUtils();
    for (let start = 0; start < n; start += enqueueChunk) {
      const specs = Array.from({ length: Math.min(enqueueChunk, n - start) }, (_, k) => ({
        identifier: jobTask,
        payload: { i: start + k },
      }));
      await utils.addJobs(specs);
    }
  }

  async enqueueOne(i: number): Promise<void> {
    await (await this.getUtils()).addJob(jobTask, { i });
  }

  async submitWorkflows(shape: WorkflowShape, n: number): Promise<void> {
    if (shape !== 'chain') throw new Error(`graphile-worker has no ${shape} workflow here`);
    const utils = await this.getUtils();
    for (let start = 0; start < n; start += enqueueChunk) {
      const specs = Array.from({ length: Math.min(enqueueChunk, n - start) }, (_, k) => ({
        identifier: 'chain_a',
        payload: { i: start + k },
      }));
      await utils.addJobs(specs);
    }
  }

  async startWorker(config: WorkerConfig): Promise<void> {
    const onJobStart = config.onJobStart;
    const noop: Task = (payload) => {
      onJobStart?.((payload as { i: number }).i);
      return Promise.resolve();
    };
    // A chain: each step's handler enqueues the next one.
    const taskList: TaskList = {
      [jobTask]: noop,
      chain_a: (payload, helpers) => helpers.addJob('chain_b', payload).then(() => undefined),
      chain_b: (payload, helpers) => helpers.addJob('chain_c', payload).then(() => undefined),
      chain_c: () => Promise.resolve(),
    };
    this.runner = await run({
      connectionString: this.url,
      concurrency: config.concurrency,
      maxPoolSize: this.poolSize,
      noHandleSignals: true,
      logger: silent,
      taskList,
      ...(config.config === 'fast'
        ? {
            preset: {
              worker: {
                localQueue: { size: localQueueSize },
                completeJobBatchDelay: 0,
                failJobBatchDelay: 0,
              },
            },
          }
        : {}),
    });
  }

  async stopWorker(): Promise<void> {
    const runner = this.runner;
    this.runner = undefined;
    if (runner) {
      await runner.stop();
      await runner.promise.catch(() => undefined);
    }
  }

  /** Jobs ever added (the id sequence) minus jobs still in the table: completed jobs are deleted. */
  async countCompleted(): Promise<number> {
    this.jobsSequence ??= (
      await this.pool.query<{ seq: string }>(`SELECT pg_get_serial_sequence($1, 'id') AS seq`, [
        `${schema}._private_jobs`,
      ])
    ).rows[0]!.seq;
    return scalar(
      this.pool,
      `SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM ${this.jobsSequence})
            - (SELECT count(*) FROM ${schema}._private_jobs) AS n`,
    );
  }

  async countWorkflowsCompleted(shape: WorkflowShape): Promise<number> {
    if (shape !== 'chain') return 0;
    return Math.floor((await this.countCompleted()) / 3);
  }

  /**
   * graphile-worker deletes completed jobs, so the rows that pile up in its table are permanently
   * failed ones (attempts = max_attempts): one real job, failed as the worker fails it, cloned.
   */
  async fillFinished(rows: number): Promise<void> {
    const utils = await this.getUtils();
    const job = await utils.addJob(jobTask, { i: -1 }, { maxAttempts: 1 });
    await this.pool.query(
      `UPDATE ${schema}._private_jobs
          SET attempts = max_attempts, last_error = 'bench filler: failed permanently', updated_at = now()
        WHERE id = $1`,
      [job.id],
    );
    await cloneRows(this.pool, {
      schema,
      table: '_private_jobs',
      where: 'id = $1',
      whereParams: [job.id],
      n: rows,
      overrides: { id: null, key: null },
    });
  }

  async close(): Promise<void> {
    await this.stopWorker();
    await this.utils?.release();
    this.utils = undefined;
    await this.admin?.end();
    this.admin = undefined;
  }
}
