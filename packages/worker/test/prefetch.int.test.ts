import { describe, expect, it } from 'vitest';
import { eventually, gate, useEngine } from './engine.js';
import { untilAborted } from './transitions/helpers.js';

const engine = useEngine();

describe('prefetch', () => {
  it('claims steps ahead of free slots, keeps their leases, and releases them unstarted at stop', async () => {
    const hold = gate();
    let started = 0;
    const worker = await engine.startWorker({
      handlers: {
        'prefetch.slow': async (ctx) => {
          started++;
          // Honours the abort, so the stop past its timeout can release this step too.
          await Promise.race([hold.promise, untilAborted(ctx.signal)]);
        },
      },
      concurrency: 1,
      prefetch: 2,
    });
    const jobs = await engine.client.enqueueMany('prefetch.slow', [1, 2, 3]);
    await eventually(
      () => worker.activeSteps === 1 && worker.bufferedSteps === 2,
      'one running, two buffered',
    );
    const held = await engine.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_steps WHERE state = 'running' AND claimed_by = $1`,
      [worker.id],
    );
    expect(held[0]!.n).toBe(3);
    expect(started).toBe(1);

    await worker.stop({ timeout: '50ms' });
    const steps = await engine.query<{ state: string; attempts: number }>(
      `SELECT state, attempts FROM cyclone_steps WHERE run_id = ANY($1::uuid[])`,
      [jobs.map((j) => j.runId)],
    );
    expect(steps.map((s) => [s.state, s.attempts])).toEqual([
      ['available', 0],
      ['available', 0],
      ['available', 0],
    ]);
    const released = await engine.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_events WHERE type = 'step_released' AND run_id = ANY($1::uuid[])`,
      [jobs.map((j) => j.runId)],
    );
    expect(released[0]!.n).toBe(3);
    hold.open();
  });

  it('runs every step exactly once with a deep prefetch', async () => {
    const seen = new Map<string, number>();
    await engine.startWorker({
      handlers: {
        'prefetch.fast': (ctx) => void seen.set(ctx.stepId, (seen.get(ctx.stepId) ?? 0) + 1),
      },
      concurrency: 4,
      prefetch: 16,
    });
    const jobs = await engine.client.enqueueMany(
      'prefetch.fast',
      Array.from({ length: 300 }, (_, i) => i),
    );
    for (const { runId } of jobs) {
      expect((await engine.client.wait(runId, { timeout: '20s' })).state).toBe('completed');
    }
    expect(seen.size).toBe(300);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
  });

  it('prefetches by default once its handlers prove quick, and not before', async () => {
    let held = gate();
    const worker = await engine.startWorker({
      handlers: { 'adaptive.quick': () => null, 'adaptive.held': () => held.promise },
      concurrency: 2,
    });
    const first = await engine.client.enqueueMany('adaptive.held', [1, 2, 3]);
    await eventually(() => worker.activeSteps === 2, 'two held steps running');
    // No handler has finished yet, so nothing is known of their speed: nothing is claimed ahead.
    expect(worker.bufferedSteps).toBe(0);
    held.open();
    for (const { runId } of first) await engine.client.wait(runId, { timeout: '10s' });

    // Quick handlers bring the moving average of run times down...
    const quick = await engine.client.enqueueMany(
      'adaptive.quick',
      Array.from({ length: 60 }, (_, i) => i),
    );
    for (const { runId } of quick) await engine.client.wait(runId, { timeout: '10s' });

    // ...and then the worker keeps a local queue: everything beyond its slots is claimed ahead.
    held = gate();
    const second = await engine.client.enqueueMany('adaptive.held', [1, 2, 3, 4, 5]);
    await eventually(
      () => worker.activeSteps === 2 && worker.bufferedSteps === 3,
      'two held steps running and three claimed ahead',
    );
    held.open();
    for (const { runId } of second) {
      expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    }
  });

  it('gives back claimed-ahead steps that aged while its handlers turned slow', async () => {
    const held = gate();
    const worker = await engine.startWorker({
      handlers: { 'aging.quick': () => null, 'aging.held': () => held.promise },
      concurrency: 1,
    });
    const quick = await engine.client.enqueueMany(
      'aging.quick',
      Array.from({ length: 30 }, (_, i) => i),
    );
    for (const { runId } of quick) await engine.client.wait(runId, { timeout: '10s' });

    const jobs = await engine.client.enqueueMany('aging.held', [1, 2, 3, 4]);
    await eventually(
      () => worker.activeSteps === 1 && worker.bufferedSteps === 3,
      'one held step running and three claimed ahead',
    );
    // The held handler never finishes meanwhile: the three age out and are given back unstarted.
    await eventually(async () => {
      const rows = await engine.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM cyclone_steps
         WHERE run_id = ANY($1::uuid[]) AND state = 'available' AND attempts = 0`,
        [jobs.map((j) => j.runId)],
      );
      return rows[0]!.n === 3 && worker.bufferedSteps === 0;
    }, 'three steps available again, none buffered');
    held.open();
    for (const { runId } of jobs) {
      expect((await engine.client.wait(runId, { timeout: '10s' })).state).toBe('completed');
    }
  });
});
