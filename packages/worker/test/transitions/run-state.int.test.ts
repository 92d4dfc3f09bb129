import { describe, expect, it } from 'vitest';
import {
  NotFoundError,
  permanent,
  RunFailedError,
  WaitTimeoutError,
  workflow,
} from '@cyclone/core';
import { gate } from '../engine.js';
import { eventRows, runRow, stepReaches, useTransitionEngine } from './helpers.js';

const engine = useTransitionEngine();

describe('run running -> completed', () => {
  it('completes the run when its last step completes; wait, result and output agree with the row', async () => {
    const pipeline = workflow('run-complete')
      .task('fetch', 'run.fetch')
      .task('parse', 'run.parse', { dependsOn: ['fetch'] })
      .task('audit', 'run.audit', { dependsOn: ['fetch'] })
      .build();
    const auditRelease = gate();
    await engine.startWorker({
      handlers: {
        'run.fetch': () => ({ body: '1,2,3' }),
        'run.parse': (ctx) => (ctx.deps.fetch as { body: string }).body.split(',').map(Number),
        'run.audit': async () => {
          await auditRelease.promise;
          return { ok: true };
        },
      },
      workflows: [pipeline],
    });
    const { runId } = await engine.client.submit(pipeline, { url: 'x' });

    // Not terminal while one step is still running.
    await stepReaches(engine, runId, 'parse', 'completed');
    expect(await runRow(engine, runId)).toMatchObject({
      state: 'running',
      open_steps: 1,
      ended_at: null,
    });
    await expect(engine.client.wait(runId, { timeout: '100ms' })).rejects.toBeInstanceOf(
      WaitTimeoutError,
    );

    auditRelease.open();
    const status = await engine.client.wait(runId, { timeout: '10s' });
    const row = await runRow(engine, runId);
    expect(status).toMatchObject({
      id: runId,
      workflow: 'run-complete',
      state: 'completed',
      errorKind: null,
      error: null,
      failedNode: null,
      failureCount: 0,
      reclaimCount: 0,
    });
    expect(status.endedAt).toEqual(row.ended_at);
    expect(status.startedAt).toEqual(row.started_at);
    expect(status.totalRunTimeMs).toBe(row.ended_at!.getTime() - row.started_at!.getTime());
    expect(row).toMatchObject({ state: 'completed', open_steps: 0 });

    expect(await engine.client.result(runId)).toEqual({ parse: [1, 2, 3], audit: { ok: true } });
    expect(await engine.client.output(runId, 'fetch')).toEqual({ body: '1,2,3' });
    // The run ended once: one run_completed event, the last one.
    const events = await eventRows(engine, runId);
    expect(events.filter((e) => e.type === 'run_completed')).toHaveLength(1);
    expect(events.at(-1)!.type).toBe('run_completed');
    // Waiting again on a terminal run answers at once.
    expect((await engine.client.wait(runId, { timeout: '1ms' })).state).toBe('completed');
  });
});

describe('run running -> failed', () => {
  it('fails the run on an uncontained discard; wait resolves with the failure and result throws RunFailedError', async () => {
    const pipeline = workflow('run-fail')
      .task('fetch', 'run.fail.fetch')
      .task('parse', 'run.fail.parse', { dependsOn: ['fetch'] })
      .build();
    await engine.startWorker({
      handlers: {
        'run.fail.fetch': () => {
          throw permanent(new Error('404 not found'));
        },
        'run.fail.parse': () => 'never',
      },
      workflows: [pipeline],
    });
    const { runId } = await engine.client.submit(pipeline, null);
    const status = await engine.client.wait(runId, { timeout: '10s' });
    const row = await runRow(engine, runId);
    expect(status).toMatchObject({
      state: 'failed',
      errorKind: 'permanent',
      error: '404 not found',
      failedNode: 'fetch',
      failureCount: 1,
    });
    expect(status.endedAt).toEqual(row.ended_at);
    expect(row.ended_at).toBeInstanceOf(Date);
    expect(row).toMatchObject({ state: 'failed', open_steps: 0 });

    const error = await engine.client.result(runId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFailedError);
    expect(error).toMatchObject({
      code: 'RUN_FAILED',
      runId,
      state: 'failed',
      errorKind: 'permanent',
      failedNode: 'fetch',
      error: '404 not found',
    });
    expect((error as Error).message).toContain('404 not found');

    // No output for the discarded node, nor for the node that never ran.
    await expect(engine.client.output(runId, 'fetch')).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.client.output(runId, 'parse')).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.client.output(runId, 'nope')).rejects.toBeInstanceOf(NotFoundError);

    const steps = await engine.client.listSteps(runId);
    expect(steps.map((s) => [s.node, s.state, s.errorKind])).toEqual([
      ['fetch', 'discarded', 'permanent'],
      ['parse', 'cancelled', null],
    ]);
    const events = await eventRows(engine, runId);
    expect(events.filter((e) => e.type === 'run_failed')).toHaveLength(1);
  });

  it('refuses unknown run ids with NotFoundError', async () => {
    await expect(engine.client.wait('00000000-0000-0000-0000-000000000000')).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(engine.client.getRun('not-a-uuid')).rejects.toBeInstanceOf(NotFoundError);
  });
});
