/**
 * A worker in the test process, for scenarios about what the worker does with values rather than
 * about its process dying: bad input and output, hostile names, what reaches the logs.
 */
import { pino, type Logger } from 'pino';
import { afterEach } from 'vitest';
import { Worker, type WorkerOptions as EngineWorkerOptions } from '@cyclone/worker';

/** A worker's options; the connection defaults to the scenario's database. */
export type WorkerOptions = Omit<EngineWorkerOptions, 'connectionString'> & {
  readonly connectionString?: string;
};

/** Starts workers (on `url()` unless the options name a connection) that are stopped after each test. */
export function useInProcessWorkers(url: () => string): {
  start(options: WorkerOptions): Promise<Worker>;
} {
  const workers: Worker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop({ timeout: '1s' })));
  });
  return {
    async start(options: WorkerOptions) {
      const worker = new Worker({
        connectionString: url(),
        pollInterval: '100ms',
        logger: pino({ level: 'silent' }),
        ...options,
      });
      workers.push(worker);
      await worker.start();
      return worker;
    },
  };
}

/** A pino logger at `level` that keeps every line it writes. */
export function capturingLogger(level = 'trace'): { logger: Logger; text: () => string } {
  const raw: string[] = [];
  const logger = pino({ level }, { write: (line: string) => void raw.push(line) });
  return { logger, text: () => raw.join('') };
}
