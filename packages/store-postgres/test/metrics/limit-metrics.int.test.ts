import { describe, expect, it } from 'vitest';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

const claim = (kind: string, limit = 100) =>
  fx.store.claim({ kinds: [kind], limit, workerId: 'test-worker', leaseMs: 60_000 });

async function jobs(kind: string, keys: readonly (string | undefined)[]): Promise<void> {
  await fx.store.submit(
    keys.map((key, i) => runOfJob(kind, JSON.stringify(i), { concurrencyKey: key ?? null })),
  );
}

const limitsOf = async (kind: string) =>
  (await fx.store.collectMetrics({ kinds: [], limits: true })).limits.find((l) => l.kind === kind);

describe('collectMetrics: flow limits', () => {
  it('reports nothing about limits unless asked', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'lm.unasked', max: 1, perKey: false });
    expect((await fx.store.collectMetrics({ kinds: [] })).limits).toEqual([]);
    await fx.store.removeLimit('lm.unasked', 'concurrency');
  });

  it("counts what a kind's cap holds back and how full it is", async () => {
    await fx.store.setConcurrencyLimit({ kind: 'lm.cap', max: 2, perKey: false });
    await jobs('lm.cap', [undefined, undefined, undefined, undefined, undefined]);
    expect(await claim('lm.cap')).toHaveLength(2);
    // A step scheduled later is not waiting on the cap.
    await fx.job('lm.cap', { delayMs: 3_600_000 });
    expect(await limitsOf('lm.cap')).toEqual({
      kind: 'lm.cap',
      concurrency: { waiting: 3, saturation: 1 },
      rate: null,
    });
    // Raised: two places free, one step still held back.
    await fx.store.setConcurrencyLimit({ kind: 'lm.cap', max: 4, perKey: false });
    expect((await limitsOf('lm.cap'))!.concurrency).toEqual({ waiting: 1, saturation: 0.5 });
    // Lowered below what runs: over-full, everything ready is held back.
    await fx.store.setConcurrencyLimit({ kind: 'lm.cap', max: 1, perKey: false });
    expect((await limitsOf('lm.cap'))!.concurrency).toEqual({ waiting: 3, saturation: 2 });
    // The same numbers as the database holds.
    const [row] = await fx.query<{ running: number; ready: number }>(
      `SELECT count(*) FILTER (WHERE state = 'running')::int AS running,
              count(*) FILTER (WHERE state = 'available' AND scheduled_at <= now())::int AS ready
       FROM cyclone_steps WHERE kind = 'lm.cap'`,
    );
    expect(row).toEqual({ running: 2, ready: 3 });
  });

  it('counts per key under a per-key cap, keyless steps as one group, saturation of the fullest key', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'lm.key', max: 1, perKey: true });
    await jobs('lm.key', ['a', 'b', undefined]);
    expect(await claim('lm.key')).toHaveLength(3);
    // a: 1 running, 2 ready → 2 held; b: 1 running, 1 ready → 1 held; c: 0 running, 1 ready →
    // free; keyless: 1 running, 1 ready → 1 held.
    await jobs('lm.key', ['a', 'a', 'b', 'c', undefined]);
    expect(await limitsOf('lm.key')).toEqual({
      kind: 'lm.key',
      concurrency: { waiting: 4, saturation: 1 },
      rate: null,
    });
    // The list of the client's side agrees.
    const listed = (await fx.store.listLimits()).find((l) => l.kind === 'lm.key');
    expect(listed).toMatchObject({ running: 3, waiting: 4 });
  });

  it('counts what a rate limit holds back, per key under perKey, and how full its window is', async () => {
    await fx.store.setRateLimit({
      kind: 'lm.rate',
      limit: 2,
      periodMs: 3_600_000,
      period: '1h',
      perKey: false,
    });
    await jobs('lm.rate', [undefined, undefined, undefined, undefined]);
    expect(await claim('lm.rate', 1)).toHaveLength(1);
    // One start in the window, one place left: of the three ready, two are held back.
    expect(await limitsOf('lm.rate')).toEqual({
      kind: 'lm.rate',
      concurrency: null,
      rate: { waiting: 2, saturation: 0.5 },
    });
    expect(await claim('lm.rate')).toHaveLength(1);
    expect((await limitsOf('lm.rate'))!.rate).toEqual({ waiting: 2, saturation: 1 });

    await fx.store.setRateLimit({
      kind: 'lm.rate-key',
      limit: 1,
      periodMs: 3_600_000,
      period: '1h',
      perKey: true,
    });
    await jobs('lm.rate-key', ['x', 'y']);
    expect(await claim('lm.rate-key')).toHaveLength(2);
    await jobs('lm.rate-key', ['x', 'x', 'z']);
    expect(await limitsOf('lm.rate-key')).toEqual({
      kind: 'lm.rate-key',
      concurrency: null,
      rate: { waiting: 2, saturation: 1 },
    });
  });

  it('reports both limits of a kind that has both', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'lm.both', max: 3, perKey: false });
    await fx.store.setRateLimit({
      kind: 'lm.both',
      limit: 1,
      periodMs: 3_600_000,
      period: '1h',
      perKey: false,
    });
    await jobs('lm.both', [undefined, undefined]);
    expect(await claim('lm.both')).toHaveLength(1);
    expect(await limitsOf('lm.both')).toEqual({
      kind: 'lm.both',
      concurrency: { waiting: 0, saturation: 1 / 3 },
      rate: { waiting: 1, saturation: 1 },
    });
  });
});
