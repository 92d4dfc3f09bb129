import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { PostgresStore } from '@cyclone/store-postgres';
import { useTestDatabase } from '@cyclone/test-db';
import { main, type Output } from '../src/index.js';

// The commands read CYCLONE_DATABASE_URL; these tests name their database explicitly.
delete process.env.CYCLONE_DATABASE_URL;

const db = useTestDatabase();
let pool: pg.Pool;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  pool.on('error', () => undefined);
});
afterAll(async () => {
  await pool.end();
});

async function cyclone(...argv: string[]) {
  const out: string[] = [];
  const output: Output = { out: (l) => out.push(l), err: () => undefined, isTTY: false };
  const code = await main(argv, output);
  return { code, out: out.join('\n') };
}

describe('fan-out progress in the CLI', () => {
  it('runs show and steps print done/total and running/limit of a fan-out node', async () => {
    const client = new Client({ pool });
    const store = new PostgresStore({ pool });
    const def = workflow('cli-fan-out')
      .task('list', 'cli.list')
      .fanOut('pack', 'cli.pack', { from: 'list', maxParallel: 2 })
      .build();
    const { runId } = await client.submit(def, null);
    const claim = (kind: string) =>
      store.claim({ kinds: [kind], limit: 1, workerId: 'cli-test', leaseMs: 60_000 });
    const [list] = await claim('cli.list');
    await store.complete([
      { stepId: list!.id, claimToken: list!.claimToken, outputJson: '["a","b","c","d"]' },
    ]);
    // One item completed, one running, one available, one pending.
    const [first] = await claim('cli.pack');
    await store.complete([{ stepId: first!.id, claimToken: first!.claimToken, outputJson: '1' }]);
    await claim('cli.pack');

    const show = await cyclone('runs', 'show', runId, '--database-url', db.url);
    expect(show.code).toBe(0);
    expect(show.out).toMatch(/fan-out\s+pack: 1\/4 done, 1\/2 running/);
    const steps = await cyclone('steps', runId, '--database-url', db.url);
    expect(steps.out).toMatch(/pack\s+fan_out\s+pending\s.*1\/4 done, 1\/2 running/);
    expect(steps.out).toMatch(/pack\[0\]\s+item\s+completed/);
    expect(steps.out).toMatch(/pack\[3\]\s+item\s+pending/);
    await client.close();
  });
});
