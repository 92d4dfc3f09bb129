/**
 * Concurrent claims of one capped kind, each ending its steps as soon as it has them, while a
 * reader counts the kind's running steps: the count must never pass the cap.
 *
 * BUG (claim-limited-steps, decision 250): the statement counts the kind's running steps in the
 * snapshot it took when it started, before it locked the kind's limit row. A claim that commits
 * between those two moments releases the row to this statement, whose count does not include the
 * steps that claim just took, so it claims up to the cap again: with a cap of 2, three worker
 * processes were seen running 4 steps at once (tools/faults scenario 20). Taking the lock in a
 * statement of its own, in the claim's transaction, before the counting statement (which then
 * reads a snapshot taken under the lock) closes the gap. Until then this test fails, and is marked
 * so; it is a race, so it reports the most it saw and how many rounds it took.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

it.fails('never lets concurrent claims run more steps of a capped kind than its cap', async () => {
  const kind = 'race.cap';
  const max = 2;
  await fx.store.setConcurrencyLimit({ kind, max, perKey: false });
  await fx.store.submit(Array.from({ length: 3_000 }, (_, i) => runOfJob(kind, String(i))));

  const reader = new pg.Client({ connectionString: fx.db.url });
  await reader.connect();
  let most = 0;
  let reads = 0;
  let claimed = 0;
  // The race shows within a second; the loop stops at the first count over the cap.
  const deadline = Date.now() + 15_000;
  const claimer = async (workerId: string) => {
    while (Date.now() < deadline && most <= max) {
      const steps = await fx.store.claim({ kinds: [kind], limit: 5, workerId, leaseMs: 60_000 });
      claimed += steps.length;
      if (steps.length > 0) {
        await fx.store.complete(
          steps.map((s) => ({ stepId: s.id, claimToken: s.claimToken, outputJson: 'null' })),
        );
      }
    }
  };
  const read = async () => {
    while (Date.now() < deadline && most <= max) {
      const { rows } = await reader.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM cyclone_steps WHERE kind = $1 AND state = 'running'`,
        [kind],
      );
      reads += 1;
      most = Math.max(most, rows[0]!.n);
    }
  };
  try {
    await Promise.all([read(), ...[1, 2, 3, 4, 5].map((i) => claimer(`race-${i}`))]);
  } finally {
    await reader.end();
  }
  console.log(`[cap-race] max=${max} most_running_seen=${most} reads=${reads} claimed=${claimed}`);
  expect(claimed).toBeGreaterThan(0);
  expect(most).toBeLessThanOrEqual(max);
});
