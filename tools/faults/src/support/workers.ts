/** Worker processes of the scenarios (the `worker-process` fixture), started and awaited. */
import { urlNamed } from './database.js';
import type { FixtureLine, FixtureProcess, FixtureSet } from './processes.js';

/** Options of a worker process; see `fixtures/worker-process.ts` for each. */
export interface WorkerProcessOptions {
  readonly id: string;
  readonly lease?: string;
  readonly concurrency?: number;
  readonly poll?: string;
  readonly workMs?: string;
  readonly signals?: boolean;
  readonly stopTimeout?: string;
  readonly clockSkewMs?: number;
  readonly logLevel?: string;
  /** `fault.hold` handlers ignore `ctx.signal`. */
  readonly ignoreAbort?: boolean;
  /** The kinds the worker handles. @defaultValue every kind of the fixture */
  readonly kinds?: readonly string[];
  /** The URL the worker connects with; by default the scenario's, named after the worker. */
  readonly url?: string;
  /** The worker's `pooler` option. */
  readonly pooler?: 'transaction';
  /** The worker's `listenConnectionString`. */
  readonly listenUrl?: string;
}

/** Starts a worker process on `url` without waiting for it. */
export function spawnWorker(
  fixtures: FixtureSet,
  url: string,
  options: WorkerProcessOptions,
): FixtureProcess {
  const env: Record<string, string> = {
    FAULT_DATABASE_URL: options.url ?? urlNamed(url, options.id),
    FAULT_WORKER_ID: options.id,
  };
  if (options.lease) env.FAULT_LEASE = options.lease;
  if (options.concurrency) env.FAULT_CONCURRENCY = String(options.concurrency);
  if (options.poll) env.FAULT_POLL = options.poll;
  if (options.workMs) env.FAULT_WORK_MS = options.workMs;
  if (options.signals) env.FAULT_SIGNALS = '1';
  if (options.stopTimeout) env.FAULT_STOP_TIMEOUT = options.stopTimeout;
  if (options.clockSkewMs) env.FAULT_CLOCK_SKEW_MS = String(options.clockSkewMs);
  if (options.logLevel) env.FAULT_LOG_LEVEL = options.logLevel;
  if (options.ignoreAbort) env.FAULT_IGNORE_ABORT = '1';
  if (options.kinds) env.FAULT_KINDS = options.kinds.join(',');
  if (options.pooler) env.FAULT_POOLER = options.pooler;
  if (options.listenUrl) env.FAULT_LISTEN_URL = options.listenUrl;
  return fixtures.start('worker-process', env, options.id);
}

/** Waits until the worker process is started and listening. */
export function workerReady(worker: FixtureProcess): Promise<FixtureLine> {
  return worker.line((l) => l.fixture === 'ready', `worker ${worker.name} to start`, 60_000);
}

/** Starts a worker process and waits until it is ready. */
export async function startWorker(
  fixtures: FixtureSet,
  url: string,
  options: WorkerProcessOptions,
): Promise<FixtureProcess> {
  const worker = spawnWorker(fixtures, url, options);
  await workerReady(worker);
  return worker;
}

/** A predicate for a fixture line of type `event` (and step, when given). */
export function fixtureEvent(event: string, stepId?: string): (line: FixtureLine) => boolean {
  return (line) => line.fixture === event && (stepId === undefined || line.stepId === stepId);
}
