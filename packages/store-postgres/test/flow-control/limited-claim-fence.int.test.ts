/**
 * The limited claim reads its candidates without locking them (the claims of a kind take turns on
 * its limit row) and fences the rows it updates itself. A candidate another writer holds and then
 * moves out of `available` (a cancel, a new schedule) must not be claimed: the claim waits for the
 * row and checks it again.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { until, useStore } from '../fixture.js';

const fx = useStore();

/** A client of its own, in a transaction that holds `stepId`'s row lock until it ends. */
async function holdRow(stepId: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: fx.db.url });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM cyclone_steps WHERE id = $1 FOR UPDATE', [stepId]);
  return client;
}

/** Whether a session of this database waits for a lock now. */
async function someoneWaitsForALock(): Promise<boolean> {
  const rows = await fx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows[0]!.n > 0;
}

describe.each([
  { setting: 'a per-key cap', limit: () => ({ max: 1, perKey: true }) },
  { setting: 'a cap of the whole kind', limit: () => ({ max: 10, perKey: false }) },
])('a limited claim under $setting', ({ setting, limit }) => {
  const kind = `fence.${setting.replace(/\W+/g, '-')}`;

  it('leaves a candidate another writer moved out of available while the claim waited for it', async () => {
    await fx.store.setConcurrencyLimit({ kind, ...limit() });
    const [moved, other] = [
      runOfJob(kind, '1', { concurrencyKey: 'a' }),
      runOfJob(kind, '2', { concurrencyKey: 'b' }),
    ];
    await fx.store.submit([moved!, other!]);
    const movedStep = moved!.steps[0]!.id;
    const otherStep = other!.steps[0]!.id;

    const writer = await holdRow(movedStep);
    try {
      const claiming = fx.store.claim({ kinds: [kind], limit: 5, workerId: 'w', leaseMs: 60_000 });
      await until(someoneWaitsForALock, 'the claim to wait for the held row');
      // The other writer moves the step on and commits: the claim then sees it is not claimable.
      await writer.query(
        `UPDATE cyclone_steps SET state = 'cancelled', ended_at = now() WHERE id = $1`,
        [movedStep],
      );
      await writer.query('COMMIT');
      const claimed = await claiming;
      expect(claimed.map((s) => s.id)).toEqual([otherStep]);
    } finally {
      await writer.end();
    }
    const rows = await fx.query<{ id: string; state: string; claim_token: string | null }>(
      'SELECT id, state, claim_token FROM cyclone_steps WHERE id = ANY($1) ORDER BY id = $2 DESC',
      [[movedStep, otherStep], movedStep],
    );
    expect(rows).toEqual([
      { id: movedStep, state: 'cancelled', claim_token: null },
      { id: otherStep, state: 'running', claim_token: expect.any(String) },
    ]);
  });

  it('takes a candidate whose holder let it go unchanged', async () => {
    const job = runOfJob(`${kind}.kept`, '1', { concurrencyKey: 'a' });
    await fx.store.setConcurrencyLimit({ kind: `${kind}.kept`, ...limit() });
    await fx.store.submit([job]);
    const stepId = job.steps[0]!.id;
    const holder = await holdRow(stepId);
    try {
      const claiming = fx.store.claim({
        kinds: [`${kind}.kept`],
        limit: 5,
        workerId: 'w',
        leaseMs: 60_000,
      });
      await until(someoneWaitsForALock, 'the claim to wait for the held row');
      await holder.query('COMMIT');
      expect((await claiming).map((s) => s.id)).toEqual([stepId]);
    } finally {
      await holder.end();
    }
  });
});
