/**
 * Scenario 12: the process expanding a fan-out node is SIGKILLed at random points of it, again and
 * again. The worker that completes the upstream node settles the run right after its completion
 * (the expansion, a thousand item tasks in bounded batches); killed anywhere in that, the run's
 * marker in the settlement outbox makes the scheduler's `settle-pending` pass redo it. Every item
 * task exists once, completes once, and the node completes once with the outputs in item order.
 */
import { afterEach, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { allRunsTerminal, stepCounts } from '../support/invariants.js';
import { delay, eventually, randomBetween } from '../support/poll.js';
import { FixtureSet } from '../support/processes.js';
import { startScheduler } from '../support/scheduler.js';
import { trials } from '../support/trials.js';
import { fixtureEvent, startWorker } from '../support/workers.js';

const db = useFaultDatabase();
const fixtures = new FixtureSet();
afterEach(() => fixtures.killAll());

const Items = 1_000;
const MaxParallel = 25;

// The run input is the list: `fault.list` returns it as the upstream output.
const fanKill = workflow('fan-kill')
  .task('list', 'fault.list')
  .fanOut('each', 'fault.work', { from: 'list', maxParallel: MaxParallel })
  .build();

it('creates each item once and completes the node once however the expansion is killed', async () => {
  const kills = trials(8);
  const list = Array.from({ length: Items }, (_, i) => i);
  const runIds: string[] = [];
  let killedWithMarker = 0;
  let killedBeforeList = 0;
  let killedMidway = 0;
  // The victim handles only the upstream node, so the expansion runs in its process.
  for (let k = 0; k < kills; k++) {
    const victim = await startWorker(fixtures, db.url, {
      id: `expander-${k}`,
      kinds: ['fault.list'],
      concurrency: 1,
    });
    const { runId } = await db.client.submit(fanKill, list);
    runIds.push(runId);
    // The completion and the expansion follow the list handler's return within milliseconds:
    // kill the victim somewhere around them (now and then before, or after, for contrast).
    await victim.line(fixtureEvent('returning'), `${victim.name} to return the list`);
    await delay(randomBetween(0, 40));
    await victim.kill();
    const [at] = await db.query<{ marked: number; listed: boolean; items: number }>(
      `SELECT (SELECT count(*)::int FROM cyclone_settlements WHERE run_id = $1) AS marked,
              (SELECT state = 'completed' FROM cyclone_steps WHERE run_id = $1 AND node = 'list')
                AS listed,
              (SELECT count(*)::int FROM cyclone_steps
               WHERE run_id = $1 AND parent_step_id IS NOT NULL) AS items`,
      [runId],
    );
    if (at!.marked > 0) killedWithMarker += 1;
    if (!at!.listed) killedBeforeList += 1;
    else if (at!.items < Items) killedMidway += 1;
  }

  // What is left is finished by a steady worker and the scheduler's sweeps.
  const scheduler = await startScheduler(db.url, { interval: '200ms' });
  try {
    await startWorker(fixtures, db.url, {
      id: 'steady',
      concurrency: MaxParallel,
      workMs: '1-5',
    });
    await eventually(() => allRunsTerminal(db.pool, runIds), 'every run to end', 240_000, 250);

    const items = await db.query<{ run_id: string; n: number; distinct_index: number }>(
      `SELECT s.run_id, count(*)::int AS n, count(DISTINCT s.item_index)::int AS distinct_index
       FROM cyclone_steps s WHERE s.run_id = ANY($1::uuid[]) AND s.parent_step_id IS NOT NULL
       GROUP BY s.run_id`,
      [runIds],
    );
    const nodes = await db.query<{ run_id: string; state: string; in_order: boolean }>(
      `SELECT n.run_id, n.state,
              coalesce((SELECT bool_and(n.output -> i.item_index ->> 'stepId' = i.id::text)
                        FROM cyclone_steps i WHERE i.parent_step_id = n.id), false) AS in_order
       FROM cyclone_steps n WHERE n.run_id = ANY($1::uuid[]) AND n.node = 'each'
         AND n.parent_step_id IS NULL`,
      [runIds],
    );
    const completions = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_history e JOIN cyclone_steps s ON s.id = e.step_id
       WHERE s.run_id = ANY($1::uuid[]) AND s.node = 'each' AND s.parent_step_id IS NULL
         AND e.to_state = 'completed'`,
      [runIds],
    );
    const markers = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM cyclone_settlements WHERE run_id = ANY($1::uuid[])',
      [runIds],
    );
    const counts = await stepCounts(db.pool, runIds);
    reportFigures('fan-out-expansion', {
      kills,
      killed_before_list: killedBeforeList,
      killed_before_expansion_committed: killedMidway,
      killed_with_marker: killedWithMarker,
      items_per_run: Items,
      steps: counts.steps,
      duplicate_items: items.reduce((sum, r) => sum + (r.n - r.distinct_index), 0),
      double: counts.doubleCompleted,
      duplicate_exec: counts.duplicateExecutions,
      node_completions: completions[0]!.n,
    });

    expect(items).toHaveLength(kills);
    for (const run of items) expect(run).toMatchObject({ n: Items, distinct_index: Items });
    expect(nodes.map((n) => [n.state, n.in_order])).toEqual(runIds.map(() => ['completed', true]));
    expect(completions[0]!.n).toBe(kills);
    // Per run: the list node, the fan-out node and its items.
    expect(counts.byState).toEqual({ completed: kills * (Items + 2) });
    expect(counts.doubleCompleted).toBe(0);
    expect(counts.completedWithoutEvent).toBe(0);
    expect(markers[0]!.n).toBe(0);
    await expectEventsFollowTable(db.pool);
  } finally {
    await scheduler.stop();
  }
});
