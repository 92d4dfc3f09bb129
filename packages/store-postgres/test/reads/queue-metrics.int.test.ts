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

describe('collectQueueMetrics', () => {
  it('counts claimable steps per given kind, zero for an idle kind, and leaves future steps out', async () => {
    for (let i = 0; i < 3; i++) await fx.job('qm.ready');
    await fx.job('qm.ready', { delayMs: 3_600_000 });
    await fx.job('qm.other');
    const metrics = await fx.store.collectQueueMetrics({ kinds: ['qm.ready', 'qm.idle'] });
    expect(metrics.queues.map((q) => [q.kind, q.available])).toEqual([
      ['qm.idle', 0],
      ['qm.ready', 3],
    ]);
    const [rows] = await fx.query<{ age: number }>(
      `SELECT extract(epoch FROM now() - min(scheduled_at))::float8 AS age FROM cyclone_steps
       WHERE kind = 'qm.ready' AND state = 'available' AND scheduled_at <= now()`,
    );
    const ready = metrics.queues.find((q) => q.kind === 'qm.ready')!;
    expect(ready.oldestAgeSeconds).toBeGreaterThan(0);
    expect(ready.oldestAgeSeconds).toBeLessThanOrEqual(rows!.age);
    expect(metrics.queues.find((q) => q.kind === 'qm.idle')!.oldestAgeSeconds).toBe(0);
  });

  it('without kinds, reports every kind with available steps, up to kindLimit', async () => {
    await fx.job('qm.all-a');
    await fx.job('qm.all-b');
    const all = await fx.store.collectQueueMetrics();
    expect(all.queues.map((q) => q.kind)).toEqual(expect.arrayContaining(['qm.all-a', 'qm.all-b']));
    const [row] = await fx.query<{ kinds: number }>(
      "SELECT count(DISTINCT kind)::int AS kinds FROM cyclone_steps WHERE state = 'available'",
    );
    expect(all.queues).toHaveLength(row!.kinds);
    expect((await fx.store.collectQueueMetrics({ kindLimit: 1 })).queues).toHaveLength(1);
  });

  it('stops counting at countLimit', async () => {
    for (let i = 0; i < 4; i++) await fx.job('qm.capped');
    const metrics = await fx.store.collectQueueMetrics({ kinds: ['qm.capped'], countLimit: 2 });
    expect(metrics.queues).toEqual([expect.objectContaining({ kind: 'qm.capped', available: 2 })]);
  });

  it('counts the DLQ by reason, every reason present', async () => {
    const before = await fx.store.collectQueueMetrics({ kinds: [] });
    await discard('qm.dlq', ErrorKind.Permanent);
    await discard('qm.dlq', ErrorKind.Permanent);
    await discard('qm.dlq', ErrorKind.Retryable);
    const after = await fx.store.collectQueueMetrics({ kinds: [] });
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
});
