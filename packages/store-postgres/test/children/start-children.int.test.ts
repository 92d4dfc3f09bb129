import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { MaxChildDepth } from '../../src/settlement/start-child-run.js';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

const childOf = async (runId: string, node: string) =>
  (
    await fx.query<{ child_run_id: string | null; state: string }>(
      'SELECT child_run_id, state FROM cyclone_steps WHERE run_id = $1 AND node = $2',
      [runId, node],
    )
  )[0]!;

describe('starting child runs', () => {
  it('starts the child run of a root child node in the submitting transaction, and rolls back with it', async () => {
    await fx.store.registerWorkflows([workflow('sc-kid').task('k', 'sc.k').build()]);
    const parent = runOfDefinition(
      workflow('sc-parent').child('kid', { workflow: 'sc-kid' }).build(),
      '{"n":1}',
    );
    const client = await fx.pool.connect();
    try {
      await client.query('BEGIN');
      await fx.store.submit([parent], client);
      const linked = await client.query<{ child_run_id: string }>(
        'SELECT child_run_id FROM cyclone_steps WHERE run_id = $1',
        [parent.id],
      );
      expect(linked.rows[0]!.child_run_id).not.toBeNull();
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    // Nothing of the parent or its child run outlived the rollback.
    expect(
      await fx.query('SELECT id FROM cyclone_runs WHERE id = $1 OR parent_run_id = $1', [
        parent.id,
      ]),
    ).toEqual([]);
    expect(await fx.query('SELECT run_id FROM cyclone_settlements')).toEqual([]);

    await fx.store.submit([parent]);
    const node = await childOf(parent.id, 'kid');
    expect(node.state).toBe('waiting_child');
    const child = await fx.run(node.child_run_id!);
    expect(child).toMatchObject({
      workflow: 'sc-kid',
      parent_run_id: parent.id,
      input: { n: 1 },
      state: 'running',
    });
    expect(await fx.query('SELECT run_id FROM cyclone_settlements')).toEqual([]);
  });

  it('starts grandchildren through the outbox, and the end of each reaches its parent', async () => {
    await fx.store.registerWorkflows([
      workflow('sc-grand').task('g', 'sc.g').build(),
      workflow('sc-middle').child('inner', { workflow: 'sc-grand' }).build(),
    ]);
    const top = runOfDefinition(
      workflow('sc-top').child('mid', { workflow: 'sc-middle' }).build(),
      'null',
    );
    await fx.store.submit([top]);
    const middle = (await childOf(top.id, 'mid')).child_run_id!;
    const grand = (await childOf(middle, 'inner')).child_run_id!;
    expect((await fx.run(grand)).parent_run_id).toBe(middle);

    const claimed = await claimOne(fx, 'sc.g');
    await fx.store.complete([
      { stepId: claimed.id, claimToken: claimed.claimToken, outputJson: '"g"' },
    ]);
    expect((await fx.run(grand)).state).toBe('completed');
    expect((await fx.run(middle)).state).toBe('completed');
    expect((await fx.run(top.id)).state).toBe('completed');
    expect(
      (
        await fx.query<{ output: unknown }>('SELECT output FROM cyclone_steps WHERE run_id = $1', [
          top.id,
        ])
      )[0]!.output,
    ).toEqual({ inner: { g: 'g' } });
  });

  it('starts the newest registration of a name, also when an older version is registered again', async () => {
    const v1 = workflow('sc-versioned').task('one', 'sc.v1').build();
    const v2 = workflow('sc-versioned').task('two', 'sc.v2').build();
    await fx.store.registerWorkflows([v1]);
    await fx.store.registerWorkflows([v2]);
    // A rollback: the old version registers again and becomes the newest.
    await fx.store.registerWorkflows([v1]);
    const parent = runOfDefinition(
      workflow('sc-versioned-parent').child('kid', { workflow: 'sc-versioned' }).build(),
      'null',
    );
    await fx.store.submit([parent]);
    const child = (await childOf(parent.id, 'kid')).child_run_id!;
    const nodes = await fx.query<{ node: string }>(
      'SELECT node FROM cyclone_steps WHERE run_id = $1',
      [child],
    );
    expect(nodes.map((n) => n.node)).toEqual(['one']);
  });

  it('stops workflows that start each other at the nesting limit, and the failure climbs back up', async () => {
    const ping = workflow('sc-ping').child('p', { workflow: 'sc-pong' }).build();
    const pong = workflow('sc-pong').child('p', { workflow: 'sc-ping' }).build();
    await fx.store.registerWorkflows([ping, pong]);
    const top = runOfDefinition(ping, 'null');
    await fx.store.submit([top]);
    // Every level failed: the deepest node refused to start another run, and each parent's child
    // node was discarded in turn (settle-pending finishes what one chain left over).
    while ((await fx.store.settlePending()) > 0);
    const runs = await fx.query<{ state: string }>(
      "SELECT state FROM cyclone_runs WHERE workflow IN ('sc-ping', 'sc-pong')",
    );
    expect(runs).toHaveLength(MaxChildDepth + 1);
    expect(new Set(runs.map((r) => r.state))).toEqual(new Set(['failed']));
    const deepest = await fx.query<{ error: string }>(
      `SELECT s.error FROM cyclone_steps s JOIN cyclone_runs r ON r.id = s.run_id
       WHERE r.workflow IN ('sc-ping', 'sc-pong') AND s.child_run_id IS NULL`,
    );
    expect(deepest).toHaveLength(1);
    expect(deepest[0]!.error).toContain(`nest ${MaxChildDepth} levels deep`);
  });
});
