/**
 * Cyclone: jobs with `client.enqueueMany` (in chunks), workflows with `client.submitMany`, one
 * `Worker` with a pool of the shared size, pino silenced.
 */
import pg from 'pg';
import { pino } from 'pino';
import { workflow, type WorkflowDefinition } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate, PostgresStore } from '@cyclone/store-postgres';
import { Worker } from '@cyclone/worker';
import { cloneRows, scalar } from '../shared/db.js';
import { systemMeta } from './meta.js';
import type { FanOutTarget } from '../measurements/fan-out.js';
import type {
  ConfigName,
  ConnectionConfig,
  SystemAdapter,
  WorkerConfig,
  WorkflowShape,
} from '../shared/types.js';
import type { Duration } from '@cyclone/core';

const jobKind = 'bench.noop';
const stepKind = 'bench.step';
const listKind = 'bench.list';
const itemKind = 'bench.item';
/** Rows per `enqueueMany` call: measured faster than one call of 20,000 (see README). */
const enqueueChunk = 2_000;

const chain = workflow('chain')
  .task('a', stepKind)
  .task('b', stepKind, { dependsOn: ['a'] })
  .task('c', stepKind, { dependsOn: ['b'] })
  .build();

const parallel = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8'] as const;
const diamond = workflow('diamond')
  .task('root', stepKind)
  .task('p1', stepKind, { dependsOn: ['root'] })
  .task('p2', stepKind, { dependsOn: ['root'] })
  .task('p3', stepKind, { dependsOn: ['root'] })
  .task('p4', stepKind, { dependsOn: ['root'] })
  .task('p5', stepKind, { dependsOn: ['root'] })
  .task('p6', stepKind, { dependsOn: ['root'] })
  .task('p7', stepKind, { dependsOn: ['root'] })
  .task('p8', stepKind, { dependsOn: ['root'] })
  .task('join', stepKind, { dependsOn: [...parallel] })
  .build();

const definitions: Readonly<Record<WorkflowShape, WorkflowDefinition>> = { chain, diamond };

/** list -> fan-out over the list, limited to `maxParallel` items at once when given. */
function fanOutWorkflow(maxParallel: number | undefined): WorkflowDefinition {
  return workflow('fan-out')
    .task('list', listKind)
    .fanOut('items', itemKind, {
      from: 'list',
      ...(maxParallel === undefined ? {} : { maxParallel }),
    })
    .build();
}

export class CycloneAdapter implements SystemAdapter, FanOutTarget {
  readonly name = 'cyclone';
  readonly configs = systemMeta['cyclone'].configs;
  readonly shapes = systemMeta['cyclone'].shapes;
  private client: Client | undefined;
  private clientPool: pg.Pool | undefined;
  private workerPool: pg.Pool | undefined;
  private worker: Worker | undefined;

  constructor(
    private readonly url: string,
    private readonly poolSize: number,
    private readonly connection: ConnectionConfig = {},
  ) {}

  describe(_config: ConfigName, concurrency: number): string {
    const { pooler, listenUrl, pollInterval } = this.connection;
    const options = [
      ...(pooler ? [`pooler: '${pooler}'`] : []),
      ...(listenUrl ? ['listenConnectionString: <direct URL>'] : []),
      ...(pollInterval ? [`pollInterval: '${pollInterval}'`] : []),
    ].join(', ');
    return `Worker({ concurrency: ${concurrency}, pool: pg.Pool({ max: ${this.poolSize} })${options ? `, ${options}` : ''} }), other options default; enqueueMany in chunks of ${enqueueChunk}`;
  }

  /** The connection options of the client and the worker (pooler, listen URL). */
  private get connectionOptions() {
    const { pooler, listenUrl } = this.connection;
    return {
      ...(pooler ? { pooler } : {}),
      ...(listenUrl ? { listenConnectionString: listenUrl } : {}),
    };
  }

  /** The worker's options beyond the connection's: its poll interval when given. */
  private get pollOptions() {
    const { pollInterval } = this.connection;
    return pollInterval ? { pollInterval: pollInterval as Duration } : {};
  }

  async setup(): Promise<void> {
    await migrate({ connectionString: this.url });
  }

  private getClient(): Client {
    if (!this.client) {
      this.clientPool = new pg.Pool({ connectionString: this.url, max: this.poolSize });
      this.clientPool.on('error', () => undefined);
      this.client = new Client({ pool: this.clientPool, ...this.connectionOptions });
    }
    return this.client;
  }

  private get pool(): pg.Pool {
    this.getClient();
    return this.clientPool!;
  }

  async bulkEnqueue(n: number): Promise<void> {
    const client = this.getClient();
    for (let start = 0; start < n; start += enqueueChunk) {
      const args = Array.from({ length: Math.min(enqueueChunk, n - start) }, (_, k) => ({
        i: start + k,
      }));
      await client.enqueueMany(jobKind, args);
    }
  }

  async enqueueOne(i: number): Promise<void> {
    await this.getClient().enqueue(jobKind, { i });
  }

  async submitWorkflows(shape: WorkflowShape, n: number): Promise<void> {
    const client = this.getClient();
    const chunk = Math.max(1, Math.floor(enqueueChunk / (shape === 'chain' ? 1 : 2)));
    for (let start = 0; start < n; start += chunk) {
      const inputs = Array.from({ length: Math.min(chunk, n - start) }, (_, k) => ({
        i: start + k,
      }));
      await client.submitMany(definitions[shape], inputs);
    }
  }

  async startWorker(config: WorkerConfig): Promise<void> {
    const onJobStart = config.onJobStart;
    this.workerPool = new pg.Pool({ connectionString: this.url, max: this.poolSize });
    this.workerPool.on('error', () => undefined);
    this.worker = new Worker({
      pool: this.workerPool,
      ...this.connectionOptions,
      ...this.pollOptions,
      concurrency: config.concurrency,
      logger: pino({ level: 'silent' }),
      workflows: config.shape ? [definitions[config.shape]] : [],
      handlers: {
        [jobKind]: (ctx) => {
          onJobStart?.((ctx.input as { i: number }).i);
          return Promise.resolve(null);
        },
        [stepKind]: () => Promise.resolve(null),
      },
    });
    await this.worker.start();
  }

  async runFanOut(options: {
    n: number;
    maxParallel: number | undefined;
    concurrency: number;
    capMs: number;
  }): Promise<{ seconds: number; highestRunning: number; completed: boolean }> {
    const definition = fanOutWorkflow(options.maxParallel);
    const list = Array.from({ length: options.n }, (_, i) => i);
    let running = 0;
    let highestRunning = 0;
    this.workerPool = new pg.Pool({ connectionString: this.url, max: this.poolSize });
    this.workerPool.on('error', () => undefined);
    this.worker = new Worker({
      pool: this.workerPool,
      ...this.connectionOptions,
      ...this.pollOptions,
      concurrency: options.concurrency,
      logger: pino({ level: 'silent' }),
      workflows: [definition],
      handlers: {
        [listKind]: () => Promise.resolve(list),
        // A no-op like every bench handler, which counts the items running at once.
        [itemKind]: async (ctx) => {
          running += 1;
          highestRunning = Math.max(highestRunning, running);
          await Promise.resolve();
          running -= 1;
          return ctx.index ?? null;
        },
      },
    });
    const client = this.getClient();
    const { runId } = await client.submit(definition, null);
    const t0 = performance.now();
    await this.worker.start();
    const run = await client.wait(runId, { timeout: options.capMs });
    const seconds = (performance.now() - t0) / 1000;
    await this.stopWorker();
    return { seconds, highestRunning, completed: run.state === 'completed' };
  }

  async stopWorker(): Promise<void> {
    await this.worker?.stop({ timeout: '5s' });
    this.worker = undefined;
    await this.workerPool?.end();
    this.workerPool = undefined;
  }

  countCompleted(): Promise<number> {
    return scalar(this.pool, `SELECT count(*) AS n FROM cyclone_runs WHERE state = 'completed'`);
  }

  /** A job's run completes in the same statement as its step: open jobs are open steps. */
  countOpenJobs(): Promise<number> {
    return scalar(
      this.pool,
      `SELECT (SELECT count(*) FROM cyclone_steps WHERE state = 'available')
            + (SELECT count(*) FROM cyclone_steps WHERE state = 'running') AS n`,
    );
  }

  countWorkflowsCompleted(shape: WorkflowShape): Promise<number> {
    return scalar(
      this.pool,
      `SELECT count(*) AS n FROM cyclone_runs WHERE state = 'completed' AND workflow = $1`,
      [definitions[shape].name],
    );
  }

  async fillFinished(rows: number): Promise<void> {
    // One job through the real path (enqueue, claim, complete), then clones of its rows.
    const client = this.getClient();
    const { runId } = await client.enqueue(jobKind, { i: -1 });
    const store = new PostgresStore({ pool: this.pool });
    const [step] = await store.claim({
      kinds: [jobKind],
      limit: 1,
      workerId: 'bench-filler',
      leaseMs: 60_000,
    });
    if (!step) throw new Error('the filler template job could not be claimed');
    await store.complete([{ stepId: step.id, claimToken: step.claimToken, outputJson: 'null' }]);
    const state = await scalar(
      this.pool,
      `SELECT count(*) AS n FROM cyclone_runs WHERE id = $1 AND state = 'completed'`,
      [runId],
    );
    if (state !== 1) throw new Error('the filler template job did not complete');
    const runIdOf = `md5('bench-run-' || g)::uuid`;
    const stepIdOf = `md5('bench-step-' || g)::uuid`;
    await cloneRows(this.pool, {
      schema: 'public',
      table: 'cyclone_runs',
      where: 'id = $1',
      whereParams: [runId],
      n: rows,
      overrides: { id: runIdOf },
    });
    await cloneRows(this.pool, {
      schema: 'public',
      table: 'cyclone_steps',
      where: 'run_id = $1',
      whereParams: [runId],
      n: rows,
      overrides: { id: stepIdOf, run_id: runIdOf, claim_token: 'gen_random_uuid()' },
    });
    await cloneRows(this.pool, {
      schema: 'public',
      table: 'cyclone_events',
      where: 'run_id = $1',
      whereParams: [runId],
      n: rows,
      overrides: {
        id: null,
        run_id: runIdOf,
        step_id: `CASE WHEN src.step_id IS NULL THEN NULL ELSE ${stepIdOf} END`,
      },
    });
  }

  async close(): Promise<void> {
    await this.stopWorker();
    await this.client?.close();
    await this.clientPool?.end().catch(() => undefined);
    this.client = undefined;
    this.clientPool = undefined;
  }
}
