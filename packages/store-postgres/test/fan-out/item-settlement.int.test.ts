import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, until, useStore } from '../fixture.js';

const fx = useStore();

const itemsOf = async (nodeId: string) =>
  fx.query<{ id: string; state: string }>(
    'SELECT id, state FROM cyclone_steps WHERE parent_step_id = $1 ORDER BY item_index',
    [nodeId],
  );

const marked = async (runId: string) =>
  (await fx.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [runId])).length > 0;

/**
 * Completes a claimed item while a side connection holds a row lock the item's settlement needs
 * (and the completion statement does not), kills the settlement's backend once it waits for that
 * lock, and resolves once the completion has returned: it committed, its settlement did not.
 */
async function completeAndKillSettlement(
  lockedStepId: string,
  item: { id: string; claimToken: string },
) {
  const blocker = new pg.Client({ connectionString: fx.db.url });
  blocker.on('error', () => undefined);
  await blocker.connect();
  const blockerPid = (await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
    .rows[0]!.pid;
  await blocker.query('BEGIN');
  await blocker.query('SELECT 1 FROM cyclone_steps WHERE id = $1 FOR UPDATE', [lockedStepId]);
  const completing = fx.store.complete([
    { stepId: item.id, claimToken: item.claimToken, outputJson: '"done"' },
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
  }, 'the settlement to wait for the locked row');
  const accepted = await completing;
  await blocker.query('ROLLBACK');
  await blocker.end();
  return accepted;
}

describe('an item task completion whose settlement is lost', () => {
  it('settle-pending releases the next item, then completes the node and promotes its dependent', async () => {
    const def = workflow('fo-item-crash')
      .task('list', 'fo-ic.list')
      .fanOut('pack', 'fo-ic.pack', { from: 'list', maxParallel: 1 })
      .task('ship', 'fo-ic.ship', { dependsOn: ['pack'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const idOf = (node: string) => run.steps.find((s) => s.node === node)!.id;
    const list = await claimOne(fx, 'fo-ic.list');
    await fx.store.complete([
      { stepId: list.id, claimToken: list.claimToken, outputJson: '["a", "b"]' },
    ]);
    const [first, second] = await itemsOf(idOf('pack'));
    expect([first!.state, second!.state]).toEqual(['available', 'pending']);

    // Item 0 completes; the release of item 1 (its row locked) is lost with the settlement.
    const item0 = await claimOne(fx, 'fo-ic.pack');
    expect([...(await completeAndKillSettlement(second!.id, item0))]).toEqual([item0.id]);
    expect((await itemsOf(idOf('pack'))).map((i) => i.state)).toEqual(['completed', 'pending']);
    expect(await marked(run.id)).toBe(true);
    await fx.store.settlePending();
    expect((await itemsOf(idOf('pack'))).map((i) => i.state)).toEqual(['completed', 'available']);
    expect(await marked(run.id)).toBe(false);

    // The last item completes; the node's completion (its row locked) is lost likewise.
    const item1 = await claimOne(fx, 'fo-ic.pack');
    expect([...(await completeAndKillSettlement(idOf('pack'), item1))]).toEqual([item1.id]);
    expect(await fx.step(idOf('pack'))).toMatchObject({ state: 'pending' });
    expect(await marked(run.id)).toBe(true);
    await fx.store.settlePending();
    expect(await fx.step(idOf('pack'))).toMatchObject({
      state: 'completed',
      output: ['done', 'done'],
    });
    expect(await fx.step(idOf('ship'))).toMatchObject({ state: 'available' });
    expect(await fx.run(run.id)).toMatchObject({ state: 'running', open_steps: 1 });
  });
});
