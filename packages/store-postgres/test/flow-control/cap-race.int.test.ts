/**
 * Concurrent claims of one capped kind, each ending its steps as soon as it has them, while a
 * reader counts the kind's running steps: the count must never pass the cap.
 *
 * The race this guards against: a statement reads the database as it was when it started, so a
 * claim that counted running steps in the statement that waited for the kind's limit row would
 * miss a claim that committed while it waited, and claim up to the cap again (a cap of 2 was seen
 * running 4 steps under three worker processes, tools/faults scenario 20). The claim locks the row
 * in a statement of its own first (execution/claim.ts); the fair claim locks in its claim
 * statement and claims only when no claim committed since that statement started (decision 400),
 * which the same race checks under fair share. It is a race, so the test reports the most it saw
 * and how many rounds it took.
 */
import pg from 'pg';
import { expect, it } from 'vitest';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

/**
 * Claims of `kind` from five connections at once, each completing its steps as soon as it has them,
 * while a reader counts the running steps (of each key, under a per-key cap): the most it saw.
 */
async function race(kind: string, max: number, perKey: boolean): Promise<number> {
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
        `SELECT coalesce(max(n), 0)::int AS n FROM (
           SELECT count(*) AS n FROM cyclone_steps WHERE kind = $1 AND state = 'running'
           GROUP BY CASE WHEN $2 THEN concurrency_key END) c`,
        [kind, perKey],
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
  console.log(
    `[cap-race] ${kind} max=${max} most_running_seen=${most} reads=${reads} claimed=${claimed}`,
  );
  expect(claimed).toBeGreaterThan(0);
  return most;
}

it('never lets concurrent claims run more steps of a capped kind than its cap', async () => {
  const kind = 'race.cap';
  await fx.store.setConcurrencyLimit({ kind, max: 2, perKey: false });
  await fx.store.submit(Array.from({ length: 3_000 }, (_, i) => runOfJob(kind, String(i))));
  expect(await race(kind, 2, false)).toBeLessThanOrEqual(2);
});

// The fair claim takes the lock in its own statement (decision 400): it must still count every
// claim that committed before it held the lock.
it('never lets concurrent claims under fair share run more steps than the kind’s cap', async () => {
  const kind = 'race.fair-cap';
  await fx.store.setConcurrencyLimit({ kind, max: 2, perKey: false });
  await fx.store.setFairShare({ kind, weights: {} });
  await fx.store.submit(
    Array.from({ length: 3_000 }, (_, i) =>
      runOfJob(kind, String(i), { concurrencyKey: `k${i % 3}` }),
    ),
  );
  expect(await race(kind, 2, false)).toBeLessThanOrEqual(2);
});
