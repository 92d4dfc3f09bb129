import { describe, expect, it } from 'vitest';
import { ErrorKind } from '@cyclone/core';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

/** Discards the one available step of `kind` with `errorKind`. */
async function discard(
  kind: string,
  errorKind: typeof ErrorKind.Permanent | typeof ErrorKind.Retryable,
): Promise<void> {
  await fx.job(kind, { maxAttempts: 1 });
  const claimed = await claimOne(fx, kind);
  const outcome = await fx.store.fail({
    stepId: claimed.id,
    claimToken: claimed.claimToken,
    errorKind,
    error: 'boom',
    panicStack: null,
    attempts: 0,
    maxAttempts: 1,
    retryDelayMs: 0,
  });
  expect(outcome).toBe('discarded');
}

describe('collectMetrics', () => {
  it('counts available and ready steps per given kind, zero for an idle kind', async () => {
    for (let i = 0; i < 3; i++) await fx.job('qm.ready');
    await fx.job('qm.ready', { delayMs: 3_600_000 });
    await fx.job('qm.other');
    const metrics = await fx.store.collectMetrics({ kinds: ['qm.ready', 'qm.idle'] });
    expect(metrics.queues.map((q) => [q.kind, q.available, q.ready])).toEqual([
      ['qm.idle', 0, 0],
      ['qm.ready', 4, 3],
    ]);
    const [rows] = await fx.query<{ age: number }>(
      `SELECT extract(epoch FROM now() - min(scheduled_at))::float8 AS age FROM cyclone_steps
       WHERE kind = 'qm.ready' AND state = 'available' AND scheduled_at <= now()`,
    );
    const ready = metrics.queues.find((q) => q.kind === 'qm.ready')!;
    expect(ready.oldestReadyAgeSeconds).toBeGreaterThan(0);
    expect(ready.oldestReadyAgeSeconds).toBeLessThanOrEqual(rows!.age);
    expect(metrics.queues.find((q) => q.kind === 'qm.idle')!.oldestReadyAgeSeconds).toBe(0);
    expect(metrics.runs).toEqual([]);
  });

  it('measures the oldest ready age by the database clock, and a delayed step is not ready', async () => {
    const due = await fx.job('qm.due');
    await fx.job('qm.later', { delayMs: 3_600_000 });
    await fx.query(
      "UPDATE cyclone_steps SET scheduled_at = now() - interval '1 minute' WHERE id = $1",
      [due.stepId],
    );
    const { queues } = await fx.store.collectMetrics({ kinds: ['qm.due', 'qm.later'] });
    expect(queues[0]).toMatchObject({ kind: 'qm.due', available: 1, ready: 1 });
    expect(queues[0]!.oldestReadyAgeSeconds).toBeGreaterThanOrEqual(59);
    expect(queues[1]).toEqual({
      kind: 'qm.later',
      available: 1,
      ready: 0,
      oldestReadyAgeSeconds: 0,
      fairShareKeys: null,
    });
  });

  it('counts the keys with claimable steps of a kind under fair share, and of no other kind', async () => {
    await fx.store.setFairShare({ kind: 'qm.fair', weights: {} });
    await fx.job('qm.fair', { concurrencyKey: 'a' });
    await fx.job('qm.fair', { concurrencyKey: 'a' });
    await fx.job('qm.fair', { concurrencyKey: 'b' });
    await fx.job('qm.fair');
    await fx.job('qm.fair', { concurrencyKey: 'later', delayMs: 3_600_000 });
    await fx.job('qm.unfair', { concurrencyKey: 'a' });
    const { queues } = await fx.store.collectMetrics({ kinds: ['qm.fair', 'qm.unfair'] });
    expect(queues.map((q) => [q.kind, q.fairShareKeys])).toEqual([
      ['qm.fair', 2],
      ['qm.unfair', null],
    ]);
  });

  it('without kinds, reports every kind with available steps, up to kindLimit', async () => {
    await fx.job('qm.all-a');
    await fx.job('qm.all-b');
    const all = await fx.store.collectMetrics();
    expect(all.queues.map((q) => q.kind)).toEqual(expect.arrayContaining(['qm.all-a', 'qm.all-b']));
    const [row] = await fx.query<{ kinds: number }>(
      "SELECT count(DISTINCT kind)::int AS kinds FROM cyclone_steps WHERE state = 'available'",
    );
    expect(all.queues).toHaveLength(row!.kinds);
    expect((await fx.store.collectMetrics({ kindLimit: 1 })).queues).toHaveLength(1);
  });

  it('with kinds and discoverKinds, reports the given kinds, the workers’ and the ones found', async () => {
    await fx.job('qm.found');
    await fx.store.registerWorker('qm-worker', ['qm.served']);
    const metrics = await fx.store.collectMetrics({ kinds: ['qm.known'], discoverKinds: true });
    await fx.store.deregisterWorker('qm-worker');
    const available = new Map(metrics.queues.map((q) => [q.kind, q.available]));
    expect(available.get('qm.found')).toBe(1);
    expect(available.get('qm.known')).toBe(0);
    expect(available.get('qm.served')).toBe(0);
  });

  it('stops counting at countLimit', async () => {
    for (let i = 0; i < 4; i++) await fx.job('qm.capped');
    const metrics = await fx.store.collectMetrics({ kinds: ['qm.capped'], countLimit: 2 });
    expect(metrics.queues).toEqual([
      expect.objectContaining({ kind: 'qm.capped', available: 2, ready: 2 }),
    ]);
  });

  it('counts the DLQ by reason, every reason present', async () => {
    const before = await fx.store.collectMetrics({ kinds: [] });
    await discard('qm.dlq', ErrorKind.Permanent);
    await discard('qm.dlq', ErrorKind.Permanent);
    await discard('qm.dlq', ErrorKind.Retryable);
    const after = await fx.store.collectMetrics({ kinds: [] });
    const size = (m: typeof after, reason: string) =>
      m.exhausted.find((e) => e.reason === reason)!.steps;
    expect(after.exhausted.map((e) => e.reason).sort()).toEqual([
      'deadline',
      'permanent',
      'reclaim_limit',
      'retryable',
    ]);
    expect(size(after, 'permanent') - size(before, 'permanent')).toBe(2);
    expect(size(after, 'retryable') - size(before, 'retryable')).toBe(1);
    expect(size(after, 'deadline')).toBe(size(before, 'deadline'));
    expect(after.queues).toEqual([]);
  });

  it('counts runs by state when asked, every state present', async () => {
    await fx.job('qm.run');
    const failed = await fx.job('qm.run');
    await fx.query("UPDATE cyclone_runs SET state = 'failed', ended_at = now() WHERE id = $1", [
      failed.runId,
    ]);
    const [counted] = await fx.query<{ running: number; failed: number }>(
      `SELECT count(*) FILTER (WHERE state = 'running')::int AS running,
              count(*) FILTER (WHERE state = 'failed')::int AS failed FROM cyclone_runs`,
    );
    const { runs } = await fx.store.collectMetrics({ kinds: [], runs: true });
    expect(Object.fromEntries(runs.map((r) => [r.state, r.runs]))).toEqual({
      running: counted!.running,
      completed: 0,
      failed: counted!.failed,
      cancelled: 0,
      paused: 0,
    });
  });
});
