import { describe, expect, it } from 'vitest';
import type { ClaimedStep } from '../../src/contract/worker-store.js';
import { PostgresStore } from '../../src/store.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

const claim = (kind: string, limit: number, store = fx.store) =>
  store.claim({ kinds: [kind], limit, workerId: 'test-worker', leaseMs: 60_000 });

async function jobs(kind: string, n: number, key: string | null, priority = 0) {
  const runs = Array.from({ length: n }, (_, i) =>
    runOfJob(kind, JSON.stringify(i), { concurrencyKey: key, priority }),
  );
  await fx.store.submit(runs);
  return runs;
}

const keyOf = async (step: ClaimedStep) => (await fx.step(step.id)).concurrency_key;

/** The concurrency keys of claimed steps, in the order claimed. */
async function keysOf(steps: readonly ClaimedStep[]): Promise<(string | null)[]> {
  const rows = await fx.query<{ id: string; concurrency_key: string | null }>(
    'SELECT id, concurrency_key FROM cyclone_steps WHERE id = ANY($1)',
    [steps.map((s) => s.id)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.concurrency_key]));
  return steps.map((s) => byId.get(s.id) ?? null);
}

async function completeAll(steps: readonly ClaimedStep[]) {
  if (steps.length === 0) return;
  await fx.store.complete(
    steps.map((s) => ({ stepId: s.id, claimToken: s.claimToken, outputJson: 'null' })),
  );
}

/** Claims `limit` at a time and completes them, `times` times; the keys started, in order. */
async function drain(kind: string, limit: number, times: number): Promise<(string | null)[]> {
  const keys: (string | null)[] = [];
  for (let i = 0; i < times; i++) {
    const steps = await claim(kind, limit);
    keys.push(...(await keysOf(steps)));
    await completeAll(steps);
  }
  return keys;
}

describe('fair share: set, list, remove', () => {
  it('lists each kind with its weights and its keys that have claimable steps', async () => {
    await fx.store.setFairShare({ kind: 'fair.list', weights: { a: 3 } });
    await jobs('fair.list', 2, 'a');
    await jobs('fair.list', 1, 'b');
    await jobs('fair.list', 1, null);
    expect(await fx.store.listFairShares()).toEqual([
      { kind: 'fair.list', weights: { a: 3 }, keys: 2 },
    ]);
    await fx.store.setFairShare({ kind: 'fair.list', weights: {} });
    expect((await fx.store.listFairShares())[0]!.weights).toEqual({});
    expect(await fx.store.removeFairShare('fair.list')).toBe(true);
    expect(await fx.store.removeFairShare('fair.list')).toBe(false);
    expect(await fx.store.listFairShares()).toEqual([]);
  });
});

describe('fair share: keys in turn', () => {
  it("starts all of a later key's steps before 40 more of a backlogged key's, one at a time", async () => {
    const kind = 'fair.turn';
    await fx.store.setFairShare({ kind, weights: {} });
    await jobs(kind, 1_000, 'A');
    const before = await drain(kind, 1, 5);
    expect(before).toEqual(['A', 'A', 'A', 'A', 'A']);
    await jobs(kind, 10, 'B');
    const after: (string | null)[] = [];
    while (after.filter((k) => k === 'B').length < 10) {
      after.push(...(await drain(kind, 1, 1)));
      expect(after.length).toBeLessThan(100);
    }
    expect(after.filter((k) => k === 'A').length).toBeLessThan(40);
    // In turn: the keys alternate while both have steps.
    expect(after.slice(0, 6)).toEqual(['B', 'A', 'B', 'A', 'B', 'A']);
  });

  it('shares starts by weight under saturation: 3:1:1 within 10 % of 60/20/20', async () => {
    const kind = 'fair.weights';
    await fx.store.setFairShare({ kind, weights: { heavy: 3 } });
    await jobs(kind, 700, 'heavy');
    await jobs(kind, 700, 'light-1');
    await jobs(kind, 700, 'light-2');
    const keys = await drain(kind, 10, 100);
    expect(keys).toHaveLength(1_000);
    const share = (key: string) => keys.filter((k) => k === key).length / keys.length;
    expect(Math.abs(share('heavy') - 0.6)).toBeLessThan(0.06);
    expect(Math.abs(share('light-1') - 0.2)).toBeLessThan(0.02);
    expect(Math.abs(share('light-2') - 0.2)).toBeLessThan(0.02);
  });

  it('takes the steps without a key as one group in the round', async () => {
    const kind = 'fair.keyless';
    await fx.store.setFairShare({ kind, weights: {} });
    await jobs(kind, 20, null);
    await jobs(kind, 20, 'k1');
    await jobs(kind, 20, 'k2');
    const keys = await drain(kind, 3, 4);
    expect(keys.filter((k) => k === null)).toHaveLength(4);
    expect(keys.filter((k) => k === 'k1')).toHaveLength(4);
    expect(keys.filter((k) => k === 'k2')).toHaveLength(4);
  });

  it('keeps the turn in the database: two stores claiming alternately share it', async () => {
    const kind = 'fair.shared';
    const other = new PostgresStore({ pool: fx.pool, tableLayout: fx.tableLayout });
    await fx.store.setFairShare({ kind, weights: {} });
    await jobs(kind, 50, 'A');
    await jobs(kind, 50, 'B');
    const keys: (string | null)[] = [];
    for (let i = 0; i < 10; i++) {
      const steps = await claim(kind, 1, i % 2 === 0 ? fx.store : other);
      for (const step of steps) keys.push(await keyOf(step));
    }
    expect(keys).toEqual(['A', 'B', 'A', 'B', 'A', 'B', 'A', 'B', 'A', 'B']);
  });
});

describe('fair share with limits and priorities', () => {
  it('cuts a key’s turn at its per-key cap, and the other keys take the places', async () => {
    const kind = 'fair.cap';
    await fx.store.setFairShare({ kind, weights: { A: 5 } });
    await fx.store.setConcurrencyLimit({ kind, max: 2, perKey: true });
    await jobs(kind, 30, 'A');
    await jobs(kind, 30, 'B');
    await jobs(kind, 30, 'C');
    const first = await claim(kind, 10);
    const keys = await keysOf(first);
    expect(keys.filter((k) => k === 'A')).toHaveLength(2);
    expect(keys.filter((k) => k === 'B')).toHaveLength(2);
    expect(keys.filter((k) => k === 'C')).toHaveLength(2);
    expect(await claim(kind, 10)).toHaveLength(0);
    await completeAll(first.filter((_, i) => keys[i] === 'B'));
    const next = await keysOf(await claim(kind, 10));
    expect(next).toEqual(['B', 'B']);
  });

  it('keeps a cap of the whole kind', async () => {
    const kind = 'fair.kindcap';
    await fx.store.setFairShare({ kind, weights: {} });
    await fx.store.setConcurrencyLimit({ kind, max: 3, perKey: false });
    await jobs(kind, 10, 'A');
    await jobs(kind, 10, 'B');
    expect(await claim(kind, 10)).toHaveLength(3);
    expect(await claim(kind, 10)).toHaveLength(0);
  });

  it('orders by priority first, and keys in turn within a priority', async () => {
    const kind = 'fair.priority';
    await fx.store.setFairShare({ kind, weights: {} });
    await jobs(kind, 10, 'A', 0);
    await jobs(kind, 3, 'B', 5);
    await jobs(kind, 3, 'C', 5);
    const keys = await drain(kind, 2, 5);
    expect(keys.slice(0, 6).sort()).toEqual(['B', 'B', 'B', 'C', 'C', 'C']);
    expect(keys.slice(6)).toEqual(['A', 'A', 'A', 'A']);
  });

  it('serves a lower priority when every key of the higher one is at its cap', async () => {
    const kind = 'fair.priority-cap';
    await fx.store.setFairShare({ kind, weights: {} });
    await fx.store.setConcurrencyLimit({ kind, max: 1, perKey: true });
    await jobs(kind, 5, 'A', 5);
    await jobs(kind, 5, 'B', 0);
    const keys = await keysOf(await claim(kind, 5));
    expect(keys.sort()).toEqual(['A', 'B']);
  });

  it('claims oldest first again as soon as fair share is removed', async () => {
    const kind = 'fair.removed';
    await fx.store.setFairShare({ kind, weights: {} });
    await jobs(kind, 20, 'A');
    await jobs(kind, 20, 'B');
    expect(await drain(kind, 2, 1)).toEqual(['A', 'B']);
    await fx.store.removeFairShare(kind);
    expect(await drain(kind, 5, 1)).toEqual(['A', 'A', 'A', 'A', 'A']);
  });
});

describe('fair share and the claimed-ahead queue', () => {
  it('takes no more steps of a kind under fair share than the fair limit', async () => {
    const kind = 'fair.ahead';
    await fx.store.setFairShare({ kind, weights: {} });
    await jobs(kind, 20, 'A');
    const steps = await fx.store.claim({
      kinds: [kind],
      limit: 10,
      fairLimit: 2,
      workerId: 'test-worker',
      leaseMs: 60_000,
    });
    expect(steps).toHaveLength(2);
    expect(steps.every((s) => s.fairShare === true)).toBe(true);
  });

  it("hands a batch out in the turn's order, not a backlogged key's older steps first", async () => {
    const kind = 'fair.batch-order';
    await fx.store.setFairShare({ kind, weights: { B: 2 } });
    await jobs(kind, 10, 'A');
    await jobs(kind, 10, 'B');
    await jobs(kind, 10, 'C');
    // A worker starts a claimed-ahead batch in the order it comes: round by round, each key its
    // weight, though every step of A is older than any of B's or C's.
    expect(await keysOf(await claim(kind, 8))).toEqual(['A', 'B', 'B', 'C', 'A', 'B', 'B', 'C']);
    expect(await keysOf(await claim(kind, 3))).toEqual(['A', 'B', 'B']);
  });
});
