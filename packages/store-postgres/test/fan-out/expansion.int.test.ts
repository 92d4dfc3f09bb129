import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { stepIdsOf } from '../../src/db/ids.js';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, until, useStore } from '../fixture.js';

const fx = useStore();

/** More items than one insert batch holds, so an expansion takes several statements. */
const Items = 2_500;

/** Submits list -> fan-out over `Items` elements; returns the run and the node's step id. */
async function start(name: string) {
  const def = workflow(name)
    .task('list', `${name}.list`)
    .fanOut('pack', `${name}.pack`, { from: 'list' })
    .build();
  const run = runOfDefinition(def, 'null');
  await fx.submit(run);
  const ids = Object.fromEntries(run.steps.map((s) => [s.node, s.id]));
  return { runId: run.id, nodeId: ids.pack!, listKind: `${name}.list`, itemKind: `${name}.pack` };
}

const listOutput = JSON.stringify(Array.from({ length: Items }, (_, i) => ({ n: i })));

async function itemCounts(nodeId: string) {
  const [row] = await fx.query<{ items: number; positions: number; expanded: number }>(
    `SELECT count(*)::int AS items, count(DISTINCT item_index)::int AS positions,
            (SELECT count(*)::int FROM cyclone_events e
             JOIN cyclone_steps s ON s.id = e.step_id
             WHERE s.parent_step_id = $1 AND e.trigger = 'fan_out_expand') AS expanded
     FROM cyclone_steps WHERE parent_step_id = $1`,
    [nodeId],
  );
  return row!;
}

/** A client of its own, outside the store's pool. */
async function sideClient(): Promise<{ client: pg.Client; pid: number }> {
  const client = new pg.Client({ connectionString: fx.db.url });
  client.on('error', () => undefined);
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return { client, pid };
}

/** Completes every item of `kind`, a batch of claims at a time. */
async function completeAllItems(kind: string) {
  for (;;) {
    const claimed = await fx.store.claim({
      kinds: [kind],
      limit: 500,
      workerId: 'w',
      leaseMs: 60_000,
    });
    if (claimed.length === 0) return;
    await fx.store.complete(
      claimed.map((c) => ({
        stepId: c.id,
        claimToken: c.claimToken,
        outputJson: JSON.stringify(c.itemIndex),
      })),
    );
  }
}

describe('fan-out expansion', () => {
  it("gives items expanded days after the submit their run's millisecond, in index order across batches", async () => {
    const def = workflow('fo-period')
      .task('list', 'fo-period.list')
      .fanOut('pack', 'fo-period.pack', { from: 'list' })
      .build();
    // The run as if submitted three days ago: its id, and so its steps' ids, carry that time.
    const made = runOfDefinition(def, 'null');
    const hex = (Date.now() - 3 * 86_400_000).toString(16).padStart(12, '0');
    const runId = `${hex.slice(0, 8)}-${hex.slice(8)}${made.id.slice(13)}`;
    const nextStepId = stepIdsOf(runId);
    await fx.submit({
      ...made,
      id: runId,
      steps: made.steps.map((s) => ({ ...s, id: nextStepId() })),
    });

    const list = await claimOne(fx, 'fo-period.list');
    const size = 1_200; // two insert batches
    await fx.store.complete([
      {
        stepId: list.id,
        claimToken: list.claimToken,
        outputJson: JSON.stringify(Array.from({ length: size }, (_, i) => i)),
      },
    ]);
    const items = async () =>
      fx.query<{ id: string; item_index: number }>(
        `SELECT id, item_index FROM cyclone_steps
         WHERE run_id = $1 AND item_index IS NOT NULL ORDER BY created_at, id`,
        [runId],
      );
    await until(async () => (await items()).length === size, 'the expansion');
    const expanded = await items();
    // Made now, each item takes the run's 48-bit time: it lives in the run's period.
    expect(new Set(expanded.map((i) => i.id.slice(0, 13)))).toEqual(new Set([runId.slice(0, 13)]));
    expect(expanded.every((i) => i.id[14] === '7')).toBe(true);
    // The order of `created_at, id` is the items' order, across the expansion's batches.
    expect(expanded.map((i) => i.item_index)).toEqual(Array.from({ length: size }, (_, i) => i));
  });

  it('a connection killed mid-expansion rolls it all back; settle-pending expands each item exactly once and the node completes once', async () => {
    const { runId, nodeId, listKind, itemKind } = await start('fo-crash');
    const { client: blocker, pid: blockerPid } = await sideClient();
    // An uncommitted row at position 1500 makes the expansion's second batch wait on the unique
    // index, after its first batch was inserted: the expansion is stopped in the middle.
    await blocker.query('BEGIN');
    await blocker.query(
      `INSERT INTO cyclone_steps (id, run_id, node, node_type, state, max_attempts, parent_step_id,
                                  item_index)
       VALUES (gen_random_uuid(), $1, 'pack', 'item', 'pending', 1, $2, 1500)`,
      [runId, nodeId],
    );
    const list = await claimOne(fx, listKind);
    const completing = fx.store.complete([
      { stepId: list.id, claimToken: list.claimToken, outputJson: listOutput },
    ]);
    let killed = false;
    await until(async () => {
      const rows = await fx.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
        [blockerPid],
      );
      for (const { pid } of rows) {
        await fx.query('SELECT pg_terminate_backend($1)', [pid]);
        killed = true;
      }
      return killed;
    }, 'the expansion to wait in its second batch');
    // The completion of the list stands; the expansion's transaction was rolled back.
    expect([...(await completing)]).toEqual([list.id]);
    await blocker.query('ROLLBACK');
    await blocker.end();
    expect(await itemCounts(nodeId)).toEqual({ items: 0, positions: 0, expanded: 0 });
    expect(
      await fx.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [runId]),
    ).toHaveLength(1);

    expect(await fx.store.settlePending()).toBe(1);
    expect(await itemCounts(nodeId)).toEqual({ items: Items, positions: Items, expanded: Items });
    // Each item holds its own element of the list, across the batches of the expansion.
    const [misplaced] = await fx.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM cyclone_steps
       WHERE parent_step_id = $1 AND item IS DISTINCT FROM jsonb_build_object('n', item_index)`,
      [nodeId],
    );
    expect(misplaced!.n).toBe(0);
    // Settling again finds the node expanded and inserts nothing.
    await fx.query('INSERT INTO cyclone_settlements (run_id) VALUES ($1)', [runId]);
    await fx.store.settlePending();
    expect(await itemCounts(nodeId)).toEqual({ items: Items, positions: Items, expanded: Items });
    expect((await fx.run(runId)).open_steps).toBe(Items + 1);

    await completeAllItems(itemKind);
    const node = await fx.step(nodeId);
    expect(node.state).toBe('completed');
    expect(node.output).toEqual(Array.from({ length: Items }, (_, i) => i));
    const completions = (await fx.events(runId)).filter((e) => e[3] === 'fan_out_completed');
    expect(completions).toEqual([
      ['fan_out_completed', 'pending', 'completed', 'fan_out_completed'],
    ]);
    expect(await fx.run(runId)).toMatchObject({ state: 'completed', open_steps: 0 });
  });

  it('two settlements racing for the same run expand the node once', async () => {
    const { runId, nodeId, listKind } = await start('fo-race');
    const { client: blocker } = await sideClient();
    // The completion's own settlement stops in its second batch (see above) while holding the
    // run's lock; a second settlement of the run queues behind it.
    await blocker.query('BEGIN');
    await blocker.query(
      `INSERT INTO cyclone_steps (id, run_id, node, node_type, state, max_attempts, parent_step_id,
                                  item_index)
       VALUES (gen_random_uuid(), $1, 'pack', 'item', 'pending', 1, $2, 1500)`,
      [runId, nodeId],
    );
    const list = await claimOne(fx, listKind);
    const completing = fx.store.complete([
      { stepId: list.id, claimToken: list.claimToken, outputJson: listOutput },
    ]);
    const waiting = async (n: number) =>
      (
        await fx.query(
          `SELECT 1 FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        )
      ).length >= n;
    await until(() => waiting(1), 'the first expansion to wait in its second batch');
    const rescanning = fx.store.settlePending();
    await until(() => waiting(2), 'the second settlement to wait for the run');
    await blocker.query('ROLLBACK');
    await blocker.end();
    await Promise.all([completing, rescanning]);
    expect(await itemCounts(nodeId)).toEqual({ items: Items, positions: Items, expanded: Items });
    expect((await fx.run(runId)).open_steps).toBe(Items + 1);
    expect(
      await fx.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [runId]),
    ).toHaveLength(0);
  });
});
