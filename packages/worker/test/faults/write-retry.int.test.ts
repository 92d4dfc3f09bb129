import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { Worker } from '../../src/index.js';
import { eventually, gate, testLogger } from '../engine.js';
import { stepReaches, stepRow, useTransitionEngine } from '../transitions/helpers.js';
import { urlNamed } from './helpers.js';

const engine = useTransitionEngine();

/**
 * Runs `write` (which makes the worker record an outcome of step `stepId`) while a transaction of
 * the test holds the step's row lock, so the worker's write waits on it; then terminates the
 * worker's waiting sessions, as a Postgres restart or a failover would, and lets go of the lock.
 */
async function killWhileRecording(app: string, stepId: string, write: () => void): Promise<void> {
  const blocker = await engine.pool.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM cyclone_steps WHERE id = $1 FOR UPDATE', [stepId]);
    write();
    const waiting = await eventually(async () => {
      const rows = await engine.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock'`,
        [app],
      );
      return rows.length > 0 ? rows : undefined;
    }, 'the worker to wait on the step lock while recording');
    const killed = await engine.query<{ ok: boolean }>(
      'SELECT pg_terminate_backend(pid) AS ok FROM unnest($1::int[]) AS pid',
      [waiting.map((w) => w.pid)],
    );
    expect(killed.every((k) => k.ok)).toBe(true);
    await blocker.query('COMMIT');
  } finally {
    blocker.release();
  }
}

describe('recording an outcome through a lost connection', () => {
  it('writes a completion again after its session is terminated: the handler runs once, before the lease expires', async () => {
    const app = 'cyclone-recorder-complete';
    const started = gate<string>();
    const finish = gate();
    let calls = 0;
    const worker = new Worker({
      connectionString: urlNamed(engine.url, app),
      logger: testLogger,
      pollInterval: '100ms',
      leaseDuration: '60s',
      handlers: {
        'retry-write.complete': async (ctx) => {
          calls++;
          started.open(ctx.stepId);
          await finish.promise;
          return 'done once';
        },
      },
    });
    await worker.start();
    try {
      const { runId } = await engine.client.enqueue('retry-write.complete', null);
      const stepId = await started.promise;
      await killWhileRecording(app, stepId, () => finish.open());
      // Without the retry the step would wait for its 60 s lease and the sweep.
      expect(await engine.client.result(runId, { timeout: '10s' })).toEqual({
        'retry-write.complete': 'done once',
      });
      expect(await stepRow(engine, runId, 'retry-write.complete')).toMatchObject({
        state: 'completed',
        attempts: 1,
        reclaims: 0,
      });
      expect(calls).toBe(1);
    } finally {
      await worker.stop({ timeout: '1s' });
    }
  });

  it('writes a failure again after its session is terminated', async () => {
    const app = 'cyclone-recorder-fail';
    const started = gate<string>();
    const finish = gate();
    let calls = 0;
    const worker = new Worker({
      connectionString: urlNamed(engine.url, app),
      logger: testLogger,
      pollInterval: '100ms',
      leaseDuration: '60s',
      handlers: {
        'retry-write.fail': async (ctx) => {
          calls++;
          started.open(ctx.stepId);
          await finish.promise;
          throw new Error('failed once');
        },
      },
    });
    await worker.start();
    try {
      // A long backoff keeps the retried step from being claimed again during the test.
      const flaky = workflow('retry-write')
        .task('fail', 'retry-write.fail', {
          maxAttempts: 3,
          backoff: { initial: '10m', jitter: 0 },
        })
        .build();
      const { runId } = await engine.client.submit(flaky, null);
      const stepId = await started.promise;
      await killWhileRecording(app, stepId, () => finish.open());
      const step = await stepReaches(engine, runId, 'fail', 'available');
      expect(step).toMatchObject({
        attempts: 1,
        reclaims: 0,
        error_kind: 'retryable',
        error: 'failed once',
      });
      expect(calls).toBe(1);
    } finally {
      await worker.stop({ timeout: '1s' });
    }
  });
});
