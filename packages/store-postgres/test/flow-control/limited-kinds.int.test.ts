/**
 * A store remembers which kinds its claims found under a flow limit and claims them the limited
 * way directly (execution/limited-kinds.ts). These tests follow a kind whose limit is removed and
 * set again while a store remembers it, and count the statements a claim sends: on a pool of one
 * connection, `pg_prepared_statements` counts each named statement's runs on that session.
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

let pool: pg.Pool;
let store: PostgresStore;
beforeEach(() => {
  pool = new pg.Pool({ connectionString: fx.db.url, max: 1 });
  store = new PostgresStore({ pool, tableLayout: fx.tableLayout });
});
afterEach(async () => {
  await pool.end();
});

const claim = (kinds: string[], limit = 100) =>
  store.claim({ kinds, limit, workerId: 'limited-kinds-test', leaseMs: 60_000 });

const jobs = (kind: string, n: number) =>
  fx.store.submit(Array.from({ length: n }, (_, i) => runOfJob(kind, String(i))));

/** Runs of each of the store's named statements on its one session so far, and how planned. */
async function statementRuns(): Promise<Map<string, { runs: number; generic: number }>> {
  const { rows } = await pool.query<{ name: string; generic: string; custom: string }>(
    `SELECT name, generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements`,
  );
  return new Map(
    rows.map((r) => [
      r.name,
      { runs: Number(r.generic) + Number(r.custom), generic: Number(r.generic) },
    ]),
  );
}

describe('a kind the store knows to be limited', () => {
  it('is claimed by its limited claim alone, planned once for any values', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'known.cap', max: 1_000, perKey: false });
    await jobs('known.cap', 40);
    // The first claim learns the limit from the unlimited statement.
    expect(await claim(['known.cap'], 4)).toHaveLength(4);
    const before = await statementRuns();
    for (let i = 0; i < 8; i++) expect(await claim(['known.cap'], 4)).toHaveLength(4);
    const after = await statementRuns();

    expect(after.get('cyclone:claim-steps')?.runs).toBe(before.get('cyclone:claim-steps')?.runs);
    const limited = after.get('cyclone:claim-limited-steps')!;
    expect(limited.runs - (before.get('cyclone:claim-limited-steps')?.runs ?? 0)).toBe(8);
    // Five custom plans, then the generic one is kept: its values are hidden from the planner.
    expect(limited.generic).toBe(limited.runs - 5);
  });

  it('is claimed without a limit once its limit is removed, and within it once set again', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'known.removed', max: 2, perKey: false });
    await jobs('known.removed', 10);
    expect(await claim(['known.removed'])).toHaveLength(2);
    expect(await claim(['known.removed'])).toHaveLength(0);

    await fx.store.removeLimit('known.removed', 'concurrency');
    expect(await claim(['known.removed'], 3)).toHaveLength(3);

    await fx.store.setConcurrencyLimit({ kind: 'known.removed', max: 6, perKey: false });
    // Five running against a cap of six: the claim that learns the limit again takes the one
    // place left.
    expect(await claim(['known.removed'])).toHaveLength(1);
    expect(await claim(['known.removed'])).toHaveLength(0);
    const [row] = await fx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = 'known.removed' AND state = 'running'`,
    );
    expect(row?.n).toBe(6);
  });

  it('is claimed after the kinds without a limit asked for beside it, within the one limit', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'mixed.cap', max: 3, perKey: false });
    await jobs('mixed.cap', 5);
    await jobs('mixed.free', 5);
    const first = await claim(['mixed.cap', 'mixed.free'], 6);
    expect(first.map((s) => s.kind)).toEqual([...Array(5).fill('mixed.free'), 'mixed.cap']);
    const second = await claim(['mixed.cap', 'mixed.free'], 6);
    expect(second.map((s) => s.kind)).toEqual(['mixed.cap', 'mixed.cap']);
    expect(await claim(['mixed.cap', 'mixed.free'], 6)).toHaveLength(0);
  });
});

describe('how far a claim under a per-key cap looks', () => {
  it('looks further at once when its first look passed over every step it read', async () => {
    await fx.store.setConcurrencyLimit({ kind: 'reach.key', max: 1, perKey: true });
    // 400 steps of one key ahead of ten steps of ten other keys: a first look of the batch and
    // 100 more finds one claimable step; the second look, 1,000 beyond the batch, the rest.
    await fx.store.submit(
      Array.from({ length: 400 }, (_, i) =>
        runOfJob('reach.key', String(i), { concurrencyKey: 'busy' }),
      ),
    );
    await fx.store.submit(
      Array.from({ length: 10 }, (_, i) =>
        runOfJob('reach.key', String(i), { concurrencyKey: `k${i}` }),
      ),
    );
    await claim(['reach.key'], 1); // learns the limit: the busy key's first step
    const claimed = await claim(['reach.key'], 20);
    expect(claimed.map((s) => s.input).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => i).sort(),
    );
    expect(await claim(['reach.key'], 20)).toHaveLength(0);
  });
});
