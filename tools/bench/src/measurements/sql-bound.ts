/**
 * The SQL bound: how fast the database alone runs a system's own claim and completion statements,
 * with no Node process in between. A short warm-up drain captures the statements the system sends
 * (text and values); then `n` jobs are enqueued and pgbench replays claim + complete, `batch` jobs
 * at a time, from `clients` connections, until the queue is empty. End-to-end figures are then read
 * as a share of this bound.
 */
import { sleep } from '../shared/db.js';
import { captureStatements, type CapturedStatement } from '../bound/capture.js';
import { runPgbench } from '../bound/pgbench.js';
import { boundStatements } from '../bound/scripts.js';
import type { ConfigName, SystemAdapter } from '../shared/types.js';

export interface SqlBoundOptions {
  readonly n: number;
  readonly batch: number;
  readonly clients: number;
  /** The configuration whose statements are captured (a peer's fastest). */
  readonly config: ConfigName;
}

export interface SqlBoundResult {
  readonly done: number;
  readonly seconds: number;
  readonly rate: number;
}

const warmUpJobs = 2_000;

export async function sqlBound(
  adapter: SystemAdapter,
  url: string,
  options: SqlBoundOptions,
): Promise<SqlBoundResult> {
  const statements = boundStatements[adapter.name];
  if (!statements) throw new Error(`${adapter.name} has no SQL bound measurement`);
  await adapter.setup();
  const captured = await captureStatements(
    (name) => statements.claim(name) || statements.complete(name),
    async () => {
      await adapter.bulkEnqueue(warmUpJobs);
      const before = await adapter.countCompleted();
      await adapter.startWorker({ concurrency: 50, config: options.config });
      const deadline = Date.now() + 60_000;
      while ((await adapter.countCompleted()) - before < warmUpJobs) {
        if (Date.now() > deadline) throw new Error('sql bound: the warm-up drain did not finish');
        await sleep(20);
      }
      await adapter.stopWorker();
    },
  );
  const pick = (is: (name: string) => boolean, what: string): CapturedStatement => {
    const found = [...captured.values()].find((s) => is(s.name));
    if (!found) throw new Error(`sql bound: ${adapter.name} sent no ${what} statement`);
    return found;
  };
  const script = statements.script(
    pick(statements.claim, 'claim'),
    pick(statements.complete, 'completion'),
    options.batch,
  );

  await adapter.bulkEnqueue(options.n);
  const before = await adapter.countCompleted();
  // Enough runs for every client to find the queue empty once: the last ones claim nothing.
  // A claim that meets another's locked rows may come back short, hence a fifth more.
  const transactions = Math.ceil((options.n / (options.batch * options.clients)) * 1.2) + 2;
  const seconds = await runPgbench(url, script, { clients: options.clients, transactions });
  const done = (await adapter.countCompleted()) - before;
  if (done < options.n) {
    throw new Error(`sql bound: ${adapter.name} completed ${done} of ${options.n} jobs`);
  }
  return { done, seconds, rate: done / seconds };
}
