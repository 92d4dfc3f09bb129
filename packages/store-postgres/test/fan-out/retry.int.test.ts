import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';

const fx = useStore();

const itemStates = async (nodeId: string) =>
  (
    await fx.query<{ state: string }>(
      'SELECT state FROM cyclone_steps WHERE parent_step_id = $1 ORDER BY item_index',
      [nodeId],
    )
  ).map((r) => r.state);

describe('retrying a fan-out node', () => {
  it('reopens every discarded item: available within maxParallel, pending beyond it, released as places free up', async () => {
    const def = workflow('fo-deadline')
      .task('list', 'fo-dl.list')
      .fanOut('pack', 'fo-dl.pack', { from: 'list', maxParallel: 2 })
      .build();
    const run = runOfDefinition(def, 'null', { deadlineMs: 3_600_000 });
    await fx.submit(run);
    const nodeId = run.steps.find((s) => s.node === 'pack')!.id;
    const list = await claimOne(fx, 'fo-dl.list');
    await fx.store.complete([
      { stepId: list.id, claimToken: list.claimToken, outputJson: '[1, 2, 3, 4, 5]' },
    ]);
    expect(await itemStates(nodeId)).toEqual([
      'available',
      'available',
      'pending',
      'pending',
      'pending',
    ]);
    // The run deadline passes: every open item and the node are discarded with kind deadline.
    await fx.query(
      `UPDATE cyclone_runs SET deadline_at = now() - interval '1 second' WHERE id = $1`,
      [run.id],
    );
    expect(await fx.store.expireRunDeadlines()).toBe(1);
    expect(await itemStates(nodeId)).toEqual(Array(5).fill('discarded'));
    expect(await fx.step(nodeId)).toMatchObject({ state: 'discarded', error_kind: 'deadline' });

    await fx.query('UPDATE cyclone_runs SET deadline_at = NULL WHERE id = $1', [run.id]);
    await fx.store.retryRun(run.id, { node: 'pack' });
    expect(await fx.step(nodeId)).toMatchObject({ state: 'pending', error_kind: null });
    expect(await itemStates(nodeId)).toEqual([
      'available',
      'available',
      'pending',
      'pending',
      'pending',
    ]);
    const retried = (await fx.events(run.id)).filter(
      (e) => e[0] === 'step_retried' && e[3] === 'operator_retry',
    );
    expect(retried.map((e) => `${e[1]}>${e[2]}`)).toEqual([
      'discarded>pending', // the node
      'discarded>available',
      'discarded>available',
      'discarded>pending',
      'discarded>pending',
      'discarded>pending',
    ]);
    expect((await fx.run(run.id)).state).toBe('running');

    // Each completion frees a place for the next item, until the node completes in order.
    for (let done = 0; done < 5; done++) {
      const item = await claimOne(fx, 'fo-dl.pack');
      await fx.store.complete([
        { stepId: item.id, claimToken: item.claimToken, outputJson: JSON.stringify(item.item) },
      ]);
      const open = (await itemStates(nodeId)).filter((s) => s === 'available' || s === 'running');
      expect(open.length).toBeLessThanOrEqual(2);
    }
    expect(await fx.step(nodeId)).toMatchObject({ state: 'completed', output: [1, 2, 3, 4, 5] });
    expect((await fx.run(run.id)).state).toBe('completed');
  });
});
