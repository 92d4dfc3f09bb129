import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { permanent } from '@cyclone/core';
import { Scheduler } from '@cyclone/scheduler';
import { eventually, gate, testLogger, useEngine } from '../engine.js';
import { sample } from './metrics-text.js';

const engine = useEngine();

describe('worker metrics', () => {
  it('counts claims and outcomes by kind and outcome after a success, a retry and a discard', async () => {
    let flakyCalls = 0;
    const worker = await engine.startWorker({
      handlers: {
        'm.ok': () => 'done',
        'm.flaky': () => {
          if (flakyCalls++ === 0) throw new Error('flaky');
          return 'done at last';
        },
        'm.bad': () => {
          throw permanent(new Error('never'));
        },
      },
    });
    const ok = await engine.client.enqueue('m.ok', null);
    const flaky = await engine.client.enqueue('m.flaky', null, { maxAttempts: 3 });
    const bad = await engine.client.enqueue('m.bad', null);
    // A retry waits out its backoff: let the flaky job's second attempt come due at once.
    await eventually(async () => {
      await engine.query(
        `UPDATE cyclone_steps SET scheduled_at = now() WHERE run_id = $1 AND state = 'available'`,
        [flaky.runId],
      );
      const runs = await Promise.all([ok, flaky, bad].map((r) => engine.client.getRun(r.runId)));
      return runs.every((r) => r.state !== 'running');
    }, 'the three runs to end');
    // An outcome is counted once its write returns, just after the run's end is visible.
    const text = await eventually(async () => {
      const t = await worker.metrics();
      const bad = sample(t, 'cyclone_steps_failed_total{kind="m.bad",outcome="discarded"}');
      return sample(t, 'cyclone_steps_completed_total{kind="m.flaky"}') === 1 && bad === 1 && t;
    }, 'the outcomes to be counted');

    expect(sample(text, 'cyclone_steps_claimed_total{kind="m.ok"}')).toBe(1);
    expect(sample(text, 'cyclone_steps_claimed_total{kind="m.flaky"}')).toBe(2);
    expect(sample(text, 'cyclone_steps_claimed_total{kind="m.bad"}')).toBe(1);
    expect(sample(text, 'cyclone_steps_completed_total{kind="m.ok"}')).toBe(1);
    expect(sample(text, 'cyclone_steps_completed_total{kind="m.flaky"}')).toBe(1);
    expect(sample(text, 'cyclone_steps_completed_total{kind="m.bad"}')).toBe(0);
    expect(sample(text, 'cyclone_steps_failed_total{kind="m.flaky",outcome="retried"}')).toBe(1);
    expect(sample(text, 'cyclone_steps_failed_total{kind="m.flaky",outcome="discarded"}')).toBe(0);
    expect(sample(text, 'cyclone_steps_failed_total{kind="m.bad",outcome="discarded"}')).toBe(1);
    expect(sample(text, 'cyclone_steps_failed_total{kind="m.ok",outcome="retried"}')).toBe(0);
    expect(sample(text, 'cyclone_step_results_dropped_total{kind="m.ok"}')).toBe(0);

    expect(sample(text, 'cyclone_step_handler_duration_seconds_count{kind="m.flaky"}')).toBe(2);
    expect(sample(text, 'cyclone_step_handler_duration_seconds_count{kind="m.ok"}')).toBe(1);
    expect(
      sample(text, 'cyclone_step_handler_duration_seconds_bucket{le="+Inf",kind="m.ok"}'),
    ).toBe(1);
    expect(sample(text, 'cyclone_step_queue_wait_seconds_count{kind="m.flaky"}')).toBe(2);
    expect(sample(text, 'cyclone_claim_duration_seconds_count')).toBeGreaterThanOrEqual(3);
    expect(text).toContain('# TYPE cyclone_step_handler_duration_seconds histogram');
    expect(text).toContain('# TYPE cyclone_claim_duration_seconds histogram');

    const [dlq] = await engine.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM cyclone_steps WHERE state = 'discarded' AND error_kind = 'permanent'",
    );
    expect(dlq!.n).toBe(1);
    expect(sample(text, 'cyclone_dlq_steps{reason="permanent"}')).toBe(dlq!.n);
    expect(sample(text, 'cyclone_dlq_steps{reason="retryable"}')).toBe(0);
    expect(sample(text, 'cyclone_queue_ready_steps{kind="m.ok"}')).toBe(0);
  });

  it("reads the queues of the worker's kinds from the database: available, ready, oldest ready age", async () => {
    const held = gate();
    const started = gate();
    const worker = await engine.startWorker({
      handlers: {
        'm.queued': async () => {
          started.open();
          await held.promise;
        },
      },
      concurrency: 1,
      prefetch: 0,
    });
    await engine.client.enqueueMany('m.queued', [1, 2, 3, 4]);
    await started.promise;
    const [rows] = await engine.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = 'm.queued' AND state = 'available'",
    );
    const text = await worker.metrics();
    held.open();
    expect(rows!.n).toBe(3);
    expect(sample(text, 'cyclone_queue_available_steps{kind="m.queued"}')).toBe(rows!.n);
    expect(sample(text, 'cyclone_queue_ready_steps{kind="m.queued"}')).toBe(rows!.n);
    expect(sample(text, 'cyclone_queue_oldest_ready_age_seconds{kind="m.queued"}')).toBeGreaterThan(
      0,
    );
  });

  it("registers into the application's registry when given one", async () => {
    const registry = new Registry();
    const worker = await engine.startWorker({
      handlers: { 'm.app': () => 1 },
      metricsRegistry: registry,
    });
    const { runId } = await engine.client.enqueue('m.app', null);
    await engine.client.wait(runId, { timeout: '10s' });
    // The completion is counted once its write returns, just after the run's end is visible.
    await eventually(async () => {
      const t = await registry.metrics();
      return sample(t, 'cyclone_steps_completed_total{kind="m.app"}') === 1;
    }, 'the completion to be counted');
    // The worker's own text is the registry's. The idle worker keeps claiming, and a claim
    // between the two reads moves its histogram, so the two are read until one pair agrees.
    await eventually(
      async () => (await worker.metrics()) === (await registry.metrics()),
      "the worker's metrics to be the application registry's",
    );
  });

  it('reports leadership for a worker with scheduler: true and for a Scheduler', async () => {
    const worker = await engine.startWorker({
      handlers: { 'm.lead': () => 1 },
      scheduler: { interval: '100ms' },
    });
    // The embedded scheduler elected itself at start: it is the only replica.
    expect(sample(await worker.metrics(), 'cyclone_scheduler_leader')).toBe(1);
    const replica = new Scheduler({ connectionString: engine.url, logger: testLogger });
    await replica.start();
    try {
      const text = await replica.metrics();
      expect(sample(text, 'cyclone_scheduler_leader')).toBe(0);
      expect(text).toContain('cyclone_scheduler_scanner_passes_total');
    } finally {
      await replica.stop();
    }
    await worker.stop({ timeout: '1s' });
    const successor = new Scheduler({ connectionString: engine.url, logger: testLogger });
    await successor.start();
    try {
      const text = await successor.metrics();
      expect(sample(text, 'cyclone_scheduler_leader')).toBe(1);
      expect(
        sample(
          text,
          'cyclone_scheduler_scanner_passes_total{scanner="reclaim-expired-leases",result="ok"}',
        ),
      ).toBeGreaterThanOrEqual(1);
    } finally {
      await successor.stop();
    }
  });
});
