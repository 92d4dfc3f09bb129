/**
 * A worker with `pooler: 'transaction'`, on a direct connection: where it takes its wake-ups from
 * and what it logs about them. The same worker through a real PgBouncer is the pooler suite's
 * (`npm run test:pooler`).
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { eventually, useEngine } from './engine.js';

const engine = useEngine();

/** A pino logger that keeps every line it writes, parsed. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

const chain = workflow('pooled-chain')
  .task('a', 'pooled.step')
  .task('b', 'pooled.step', { dependsOn: ['a'] })
  .task('c', 'pooled.step', { dependsOn: ['b'] })
  .build();

it('polls without a listen URL, says so once at start, and runs a chain without waiting for a poll', async () => {
  const { runId } = await engine.client.submit(chain, null);
  const { lines, logger } = capturingLogger();
  // A poll far beyond the test's deadline: each next step is found because the previous
  // step's written outcome looks for work at once.
  await engine.startWorker({
    pooler: 'transaction',
    pollInterval: '10m',
    logger,
    workflows: [chain],
    handlers: { 'pooled.step': (ctx) => ctx.node },
  });
  await eventually(
    async () => (await engine.client.getRun(runId)).state === 'completed',
    'the chain to complete',
    10_000,
  );
  const polling = lines.filter((l) => String(l.msg).startsWith('no LISTEN connection'));
  expect(polling).toHaveLength(1);
  expect(polling[0]).toMatchObject({ pollIntervalMs: 600_000 });
  expect(lines.find((l) => l.msg === 'worker started')).toMatchObject({
    pooler: 'transaction',
    wakeUps: 'poll',
  });
});

it('LISTENs on listenConnectionString: a job enqueued after start is claimed without a poll', async () => {
  const { lines, logger } = capturingLogger();
  await engine.startWorker({
    pooler: 'transaction',
    listenConnectionString: engine.url,
    pollInterval: '10m',
    logger,
    handlers: { 'pooled.job': () => 'done' },
  });
  const { runId } = await engine.client.enqueue('pooled.job', null);
  await eventually(
    async () => (await engine.client.getRun(runId)).state === 'completed',
    'the job to complete',
    10_000,
  );
  expect(lines.find((l) => l.msg === 'worker started')).toMatchObject({ wakeUps: 'listen' });
  expect(lines.some((l) => String(l.msg).startsWith('no LISTEN connection'))).toBe(false);
});
