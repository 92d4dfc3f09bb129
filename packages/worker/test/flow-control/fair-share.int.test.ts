/**
 * Fair share under a real worker: with one worker of concurrency 1 and quick handlers (which make
 * it claim ahead), a key's backlog does not hold back another key's steps enqueued after it;
 * weights share the starts under saturation; the steps it claims ahead come keys in turn, never
 * one key's backlog; a per-key cap and priorities hold beside it; and its removal brings back
 * oldest first for every claim after it.
 */
import { describe, expect, it } from 'vitest';
import type { StepContext } from '../../src/index.js';
import { FairAheadPerSlot } from '../../src/producer.js';
import { eventually, gate, useEngine } from '../engine.js';

const engine = useEngine();

describe('fair share under a worker', () => {
  it("starts all 10 of B's steps before 40 more of A's 1,000 queued before them", async () => {
    const kind = 'fair.worker';
    await engine.client.setFairShare({ kind });
    await engine.client.enqueueMany(
      kind,
      Array.from({ length: 1_000 }, () => ({ key: 'A' })),
      { concurrencyKey: 'A' },
    );
    const started: string[] = [];
    const handler = (ctx: StepContext) => {
      started.push((ctx.input as { key: string }).key);
      return Promise.resolve(null);
    };
    await engine.startWorker({ concurrency: 1, handlers: { [kind]: handler } });
    // Quick handlers: by now the worker keeps a local queue for unlimited kinds.
    await eventually(() => started.length >= 50, '50 of A to start');
    await engine.client.enqueueMany(
      kind,
      Array.from({ length: 10 }, () => ({ key: 'B' })),
      { concurrencyKey: 'B' },
    );
    // Counted from when B's steps are committed: the A's that start while the enqueue is on its
    // way (many on a loaded machine) were claimed before B existed.
    const mark = started.length;
    await eventually(() => started.filter((k) => k === 'B').length === 10, "B's 10 to start");
    const lastB = started.lastIndexOf('B');
    const aAfter = started.slice(mark, lastB).filter((k) => k === 'A').length;
    expect(aAfter).toBeLessThan(40);
  });
  it('shares starts by weight under saturation: 3:1:1 within 10 % of 60/20/20 over 1,000 starts', async () => {
    const kind = 'fair.worker-weights';
    await engine.client.setFairShare({ kind, weights: { heavy: 3 } });
    for (const key of ['heavy', 'light-1', 'light-2']) {
      await engine.client.enqueueMany(
        kind,
        Array.from({ length: 700 }, () => ({ key })),
        { concurrencyKey: key },
      );
    }
    const started: string[] = [];
    const handler = (ctx: StepContext) => {
      started.push((ctx.input as { key: string }).key);
      return Promise.resolve(null);
    };
    await engine.startWorker({ concurrency: 4, handlers: { [kind]: handler } });
    // Every key has steps throughout: heavy's 600 of the first 1,000 leave it 100.
    await eventually(() => started.length >= 1_000, '1,000 starts', 120_000, 50);
    const first = started.slice(0, 1_000);
    const share = (key: string) => first.filter((k) => k === key).length / first.length;
    expect(Math.abs(share('heavy') - 0.6)).toBeLessThan(0.06);
    expect(Math.abs(share('light-1') - 0.2)).toBeLessThan(0.02);
    expect(Math.abs(share('light-2') - 0.2)).toBeLessThan(0.02);
  }, 150_000);

  it("claims ahead of its slots keys in turn, never a backlogged key's steps in a row", async () => {
    const kind = 'fair.worker-ahead';
    await engine.client.setFairShare({ kind });
    // A's backlog is older than every step of the others: oldest first would claim A's alone.
    for (const [key, n] of [
      ['A', 1_500],
      ['B', 150],
      ['C', 150],
      ['D', 150],
    ] as const) {
      await engine.client.enqueueMany(
        kind,
        Array.from({ length: n }, () => ({ key })),
        { concurrencyKey: key },
      );
    }
    let started = 0;
    await engine.startWorker({
      concurrency: 2,
      handlers: {
        [kind]: () => {
          started++;
          return Promise.resolve(null);
        },
      },
    });
    // The steps the worker holds (claimed: running or waiting in its local queue), by key,
    // sampled while the others' steps last.
    let most = 0;
    let worst = 0;
    while (started < 400) {
      const rows = await engine.pool.query<{ key: string; n: number }>(
        `SELECT concurrency_key AS key, count(*)::int AS n FROM cyclone_steps
         WHERE kind = $1 AND state = 'running' GROUP BY 1`,
        [kind],
      );
      const held = rows.rows.reduce((sum, r) => sum + r.n, 0);
      most = Math.max(most, held);
      if (held >= 8) {
        const a = rows.rows.find((r) => r.key === 'A')?.n ?? 0;
        worst = Math.max(worst, a / held);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // It held more than its two slots: a local queue, claimed ahead.
    expect(most).toBeGreaterThanOrEqual(8);
    // And A, a quarter of the turn, never held half of it.
    expect(worst).toBeLessThan(0.5);
  });

  it('orders by priority first, and keys in turn within a priority', async () => {
    const kind = 'fair.worker-priority';
    await engine.client.setFairShare({ kind });
    const enqueue = (key: string, n: number, priority: number) =>
      engine.client.enqueueMany(
        kind,
        Array.from({ length: n }, () => ({ key })),
        { concurrencyKey: key, priority },
      );
    await enqueue('A', 10, 0);
    await enqueue('B', 3, 5);
    await enqueue('C', 3, 5);
    const started: string[] = [];
    const handler = (ctx: StepContext) => {
      started.push((ctx.input as { key: string }).key);
      return Promise.resolve(null);
    };
    await engine.startWorker({ concurrency: 1, handlers: { [kind]: handler } });
    await eventually(() => started.length === 16, 'the 16 steps to start', 30_000);
    expect(started.slice(0, 6)).toEqual(['B', 'C', 'B', 'C', 'B', 'C']);
    expect(started.slice(6)).toEqual(Array.from({ length: 10 }, () => 'A'));
  });

  it('keeps a per-key cap beside the weights', async () => {
    const kind = 'fair.worker-cap';
    await engine.client.setFairShare({ kind, weights: { A: 3 } });
    await engine.client.setConcurrencyLimit({ kind, max: 1, perKey: true });
    for (const key of ['A', 'B', 'C']) {
      await engine.client.enqueueMany(
        kind,
        Array.from({ length: 10 }, () => ({ key })),
        { concurrencyKey: key },
      );
    }
    const started: string[] = [];
    const running = new Map<string, number>();
    let mostOfOneKey = 0;
    const handler = async (ctx: StepContext) => {
      const key = (ctx.input as { key: string }).key;
      started.push(key);
      running.set(key, (running.get(key) ?? 0) + 1);
      mostOfOneKey = Math.max(mostOfOneKey, running.get(key)!);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running.set(key, running.get(key)! - 1);
      return null;
    };
    await engine.startWorker({ concurrency: 4, handlers: { [kind]: handler } });
    await eventually(() => started.length === 30, 'the 30 steps to start', 30_000);
    // A's weight of 3 cannot pass its cap of 1: no key ever ran two steps at once, and the first
    // claim (4 free slots) took one step of each key.
    expect(mostOfOneKey).toBe(1);
    expect(started.slice(0, 3).sort()).toEqual(['A', 'B', 'C']);
  });

  it('claims oldest first again as soon as fair share is removed', async () => {
    const kind = 'fair.worker-removed';
    await engine.client.setFairShare({ kind });
    const enqueue = (key: string) =>
      engine.client.enqueueMany(
        kind,
        Array.from({ length: 20 }, () => ({ key })),
        { concurrencyKey: key },
      );
    await enqueue('A');
    await enqueue('B');
    const started: string[] = [];
    const removed = gate();
    const handler = async (ctx: StepContext) => {
      started.push((ctx.input as { key: string }).key);
      // The sixth start holds the only slot until fair share is gone. Meanwhile the worker holds
      // at most its local queue of steps claimed ahead, keys in turn (`FairAheadPerSlot` for its
      // one slot), and claims nothing more.
      if (started.length === 6) await removed.promise;
      return null;
    };
    await engine.startWorker({ concurrency: 1, handlers: { [kind]: handler } });
    await eventually(() => started.length === 6, 'six starts');
    expect(started).toEqual(['A', 'B', 'A', 'B', 'A', 'B']);
    await engine.client.removeFairShare(kind);
    removed.open();
    await eventually(() => started.length === 40, 'every step to start', 30_000);
    // The steps claimed ahead before the removal start first, in turn; every step claimed after
    // it starts oldest first: the rest of A's (enqueued first), then the rest of B's.
    const after = started.slice(6);
    const oldestFirst = (keys: readonly string[]) => keys.join('').match(/^A*B*$/) !== null;
    let ahead = 0;
    while (!oldestFirst(after.slice(ahead))) ahead++;
    expect(ahead).toBeLessThanOrEqual(FairAheadPerSlot);
    expect(after.slice(ahead).filter((k) => k === 'A').length).toBeGreaterThan(0);
  });
});
