/**
 * The engine through PgBouncer in transaction mode, as an application runs it with
 * `pooler: 'transaction'` and no listen URL: a client, a worker and a scheduler whose every
 * connection goes through the pooler, polling for their wake-ups. Jobs, a 3-step workflow, a
 * fan-out, a signal, a timer, a cron schedule, cancel and retry all complete, and nothing logs an
 * error. Then a worker that LISTENs on a direct URL is woken without polling.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@cyclone/client';
import { permanent, workflow, type RunStatus } from '@cyclone/core';
import { Scheduler } from '@cyclone/scheduler';
import { Worker } from '@cyclone/worker';
import { useFaultDatabase } from '../support/database.js';
import { capturingLogger } from '../support/in-process-worker.js';
import { eventually } from '../support/poll.js';
import { poolerUrl, throughPooler } from '../support/pooler.js';

const db = useFaultDatabase();

const chain = workflow('pooled-chain')
  .task('a', 'pooled.step')
  .task('b', 'pooled.step', { dependsOn: ['a'] })
  .task('c', 'pooled.step', { dependsOn: ['b'] })
  .build();
const fanOut = workflow('pooled-fan-out')
  .task('list', 'pooled.list')
  .fanOut('double', 'pooled.double', { from: 'list', maxParallel: 2 })
  .build();
const approval = workflow('pooled-approval')
  .task('prepare', 'pooled.step')
  .waitSignal('approved', { signal: 'approved', dependsOn: ['prepare'], maxWait: '1h' })
  .task('ship', 'pooled.step', { dependsOn: ['approved'] })
  .build();
const delayed = workflow('pooled-timer')
  .waitTimer('pause', { waitFor: '1s' })
  .task('after', 'pooled.step', { dependsOn: ['pause'] })
  .build();
const workflows = [chain, fanOut, approval, delayed];

/** Runs whose `pooled.refuse-once` handler has refused once already. */
const refused = new Set<string>();
const { logger, text: logText } = capturingLogger('info');
let client: Client;
let worker: Worker;
let scheduler: Scheduler;

beforeAll(async () => {
  if (!poolerUrl) return;
  const connection = { connectionString: throughPooler(db.url), pooler: 'transaction' } as const;
  client = new Client({ ...connection, waitPollInterval: '200ms' });
  worker = new Worker({
    ...connection,
    workflows,
    logger,
    pollInterval: '200ms',
    // A cancelled handler learns of it at its next heartbeat when nothing LISTENs.
    heartbeatInterval: '300ms',
    handlers: {
      'pooled.echo': (ctx) => ctx.input as unknown,
      'pooled.step': (ctx) => ({ node: ctx.node, after: Object.keys(ctx.deps) }),
      'pooled.list': () => [1, 2, 3, 4, 5],
      'pooled.double': (ctx) => (ctx.item as number) * 2,
      'pooled.tick': () => 'tick',
      'pooled.hold': (ctx) =>
        new Promise((_, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)),
        ),
      'pooled.refuse-once': (ctx) => {
        if (refused.has(ctx.runId)) return 'accepted';
        refused.add(ctx.runId);
        throw permanent(new Error('refused the first time'));
      },
    },
  });
  scheduler = new Scheduler({ ...connection, workflows, logger, interval: '200ms' });
  await worker.start();
  await scheduler.start();
});

afterAll(async () => {
  await worker?.stop({ timeout: '2s' });
  await scheduler?.stop();
  await client?.close();
});

/** The run once it ended (every wait here is through the pooler, polling). */
function ended(runId: string): Promise<RunStatus> {
  return client.wait(runId, { timeout: '30s' });
}

describe.skipIf(!poolerUrl)('the engine through a transaction-mode pooler, polling', () => {
  it('says at start that it polls: no LISTEN connection', () => {
    const started = logText()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(started.find((l) => l.msg === 'worker started')).toMatchObject({
      pooler: 'transaction',
      wakeUps: 'poll',
    });
    expect(started.filter((l) => String(l.msg).startsWith('no LISTEN connection'))).toHaveLength(1);
  });

  it('submits a job and returns its output', async () => {
    const { runId } = await client.enqueue('pooled.echo', { n: 42 });
    expect((await ended(runId)).state).toBe('completed');
    expect(await client.output(runId, 'pooled.echo')).toEqual({ n: 42 });
  });

  it('runs a 3-step workflow in order', async () => {
    const { runId } = await client.submit(chain, null);
    expect(await client.result(runId, { timeout: '30s' })).toEqual({
      c: { node: 'c', after: ['b'] },
    });
  });

  it('fans out over a list, two items at a time, and collects the outputs in order', async () => {
    const { runId } = await client.submit(fanOut, null);
    expect(await client.result(runId, { timeout: '30s' })).toEqual({ double: [2, 4, 6, 8, 10] });
  });

  it('delivers a signal to a waiting node', async () => {
    const { runId } = await client.submit(approval, null);
    await eventually(
      async () =>
        (await client.listSteps(runId)).find((s) => s.node === 'approved')?.state ===
        'waiting_signal',
      'the approval node to wait',
      30_000,
    );
    await client.signal(runId, 'approved', { by: 'ann' });
    expect((await ended(runId)).state).toBe('completed');
    expect(await client.output(runId, 'approved')).toMatchObject({ payload: { by: 'ann' } });
  });

  it('fires a timer', async () => {
    const { runId } = await client.submit(delayed, null);
    expect((await ended(runId)).state).toBe('completed');
    expect(await client.output(runId, 'pause')).toHaveProperty('firedAt');
  });

  it('fires a cron schedule', async () => {
    await client.schedule({ id: 'pooled-tick', cron: '*/2 * * * * *', kind: 'pooled.tick' });
    try {
      const fire = await eventually(
        async () =>
          (await client.listScheduleFires('pooled-tick')).find(
            (f) => f.outcome === 'submitted' && f.runId !== null,
          ),
        'the schedule to fire',
        30_000,
      );
      expect((await ended(fire.runId!)).state).toBe('completed');
    } finally {
      await client.unschedule('pooled-tick');
    }
  });

  it('cancels a run whose step is running, and its handler is aborted', async () => {
    const { runId } = await client.enqueue('pooled.hold', null);
    await eventually(
      async () => (await client.listSteps(runId))[0]?.state === 'running',
      'the step to start',
      30_000,
    );
    await client.cancel(runId);
    expect((await ended(runId)).state).toBe('cancelled');
    await eventually(() => worker.activeSteps === 0, 'the handler to be aborted', 30_000);
  });

  it('retries a discarded step, and the run completes', async () => {
    const { runId } = await client.enqueue('pooled.refuse-once', null);
    expect((await ended(runId)).state).toBe('failed');
    await client.retry(runId, 'pooled.refuse-once');
    expect((await ended(runId)).state).toBe('completed');
    expect(await client.output(runId, 'pooled.refuse-once')).toBe('accepted');
  });

  it('logged no error on the way', () => {
    const errors = logText()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level >= 50);
    expect(errors).toEqual([]);
  });
});

describe.skipIf(!poolerUrl)('with listenConnectionString, a direct URL', () => {
  it('wakes a worker through its LISTEN, its statements through the pooler', async () => {
    const listening = new Worker({
      connectionString: throughPooler(db.url),
      pooler: 'transaction',
      listenConnectionString: db.url,
      // No poll within the test's deadline: only the notification can wake it.
      pollInterval: '10m',
      logger,
      handlers: { 'pooled.listened': () => 'heard' },
    });
    await listening.start();
    try {
      const { runId } = await client.enqueue('pooled.listened', null);
      expect((await client.wait(runId, { timeout: '20s' })).state).toBe('completed');
    } finally {
      await listening.stop({ timeout: '2s' });
    }
  });
});
