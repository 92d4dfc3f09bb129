import pg from 'pg';
import { expect, it } from 'vitest';
import { Channels } from '../../src/db/channels.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { until, useStore } from '../fixture.js';

const fx = useStore();

// NOTIFY refuses a payload of 8000 bytes or more: the ids of 300 ended runs (11,100 bytes) must go
// out in several notifications, or the whole completion fails.
it('completes a batch of 300 jobs in one statement and announces every ended run', async () => {
  const runs = Array.from({ length: 300 }, () => runOfJob('large.batch', 'null'));
  await fx.store.submit(runs);
  const listener = new pg.Client({ connectionString: fx.db.url });
  await listener.connect();
  const announced = new Set<string>();
  listener.on('notification', (n) => {
    for (const id of n.payload?.split(',') ?? []) announced.add(id);
  });
  try {
    await listener.query(`LISTEN ${Channels.runsEnded}`);
    const claimed = await fx.store.claim({
      kinds: ['large.batch'],
      limit: 300,
      workerId: 'w-large',
      leaseMs: 30_000,
    });
    expect(claimed).toHaveLength(300);
    const accepted = await fx.store.complete(
      claimed.map((c) => ({ stepId: c.id, claimToken: c.claimToken, outputJson: 'null' })),
    );
    expect(accepted.size).toBe(300);
    const [row] = await fx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_runs WHERE state = 'completed'`,
    );
    expect(row!.n).toBe(300);
    await until(() => Promise.resolve(announced.size === 300), 'every ended run announced');
    expect([...announced].sort()).toEqual(runs.map((r) => r.id).sort());
  } finally {
    await listener.end();
  }
});
