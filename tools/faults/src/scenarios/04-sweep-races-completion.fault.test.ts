/**
 * Scenario 4: the recovery sweep racing a completion. A step is claimed with a lease that has
 * just run out, then its completion and the sweep are sent at the same moment on two connections,
 * at random offsets. Either may win; never both: a completed step stays completed (no reclaim
 * after it), and a reclaimed step's completion is refused by the fence and the step completes
 * once, later, under a new claim.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { connectStore, type StoreConnection } from '@cyclone/store-postgres';
import { urlNamed, useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { stepCounts } from '../support/invariants.js';
import { delay, randomBetween } from '../support/poll.js';
import { trials } from '../support/trials.js';

const db = useFaultDatabase();
let worker: StoreConnection;
let sweeper: StoreConnection;
beforeAll(() => {
  worker = connectStore({
    connectionString: urlNamed(db.url, 'fault-race-worker'),
    maxConnections: 2,
  });
  sweeper = connectStore({
    connectionString: urlNamed(db.url, 'fault-race-sweep'),
    maxConnections: 2,
  });
});
afterAll(async () => {
  await worker?.close();
  await sweeper?.close();
});

it('never lets the sweep undo a completion, nor a fenced completion land after a reclaim', async () => {
  const count = trials(150, 10);
  let completionWon = 0;
  let sweepWon = 0;
  let both = 0;
  const runIds: string[] = [];
  for (let t = 0; t < count; t++) {
    const { runId } = await db.client.enqueue('fault.race', { t });
    runIds.push(runId);
    // A lease of 1 ms: expired by the time the two statements arrive.
    const [step] = await worker.store.claim({
      kinds: ['fault.race'],
      limit: 1,
      workerId: 'racer',
      leaseMs: 1,
    });
    if (!step) throw new Error(`trial ${t}: nothing to claim`);
    await delay(2);
    const completion = { stepId: step.id, claimToken: step.claimToken, outputJson: '{"t":1}' };
    const [accepted, reclaimed] = await Promise.all([
      delay(randomBetween(0, 2)).then(() => worker.store.complete([completion])),
      delay(randomBetween(0, 2)).then(() => sweeper.store.reclaimExpired()),
    ]);
    const completed = accepted.has(step.id);
    if (completed && reclaimed > 0) both++;
    if (completed) completionWon++;
    else {
      sweepWon++;
      // The reclaimed step is claimed again and completed under its new claim.
      const [again] = await worker.store.claim({
        kinds: ['fault.race'],
        limit: 1,
        workerId: 'racer',
        leaseMs: 60_000,
      });
      if (!again) throw new Error(`trial ${t}: the reclaimed step is not claimable`);
      const done = await worker.store.complete([
        { stepId: again.id, claimToken: again.claimToken, outputJson: '{"t":2}' },
      ]);
      expect(done.has(again.id)).toBe(true);
    }
  }

  const counts = await stepCounts(db.pool, runIds);
  // Nothing happens to a step after its completion.
  const [{ after }] = (await db.query<{ after: number }>(
    `SELECT count(*)::int AS after FROM cyclone_history e
     JOIN (SELECT step_id, min(id) AS done FROM cyclone_history WHERE type = 'step_completed'
           GROUP BY step_id) c ON c.step_id = e.step_id AND e.id > c.done`,
  )) as [{ after: number }];
  reportFigures('sweep-vs-completion', {
    trials: count,
    completion_won: completionWon,
    sweep_won: sweepWon,
    both_won: both,
    double: counts.doubleCompleted,
    events_after_completion: after,
  });

  expect(both).toBe(0);
  expect(counts.byState).toEqual({ completed: count });
  expect(counts.doubleCompleted).toBe(0);
  expect(after).toBe(0);
  await expectEventsFollowTable(db.pool);
});
