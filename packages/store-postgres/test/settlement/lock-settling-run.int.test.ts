import { describe, expect, it } from 'vitest';
import { NodeType, workflow } from '@cyclone/core';
import { SqlRunner } from '../../src/db/sql-runner.js';
import { StatementCompiler } from '../../src/db/statement.js';
import { tablesIn } from '../../src/db/tables.js';
import { lockSettlingRun } from '../../src/tables/runs/lock-settling-run.js';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { claimOne, until, useStore } from '../fixture.js';

const fx = useStore();

/** Locks `runId` for its settlement in a transaction of its own, and returns what it read. */
async function lockForSettlement(runId: string) {
  const exec = new SqlRunner(
    fx.pool,
    new StatementCompiler(tablesIn(undefined, fx.tableLayout)),
    fx.pool,
  );
  return exec.transaction((tx) => lockSettlingRun(tx, { runId, taskType: NodeType.Task }));
}

describe('the lock a settlement takes', () => {
  it("names each type of the run's nodes once, its item tasks left out, and whether a task is cached", async () => {
    const def = workflow('lock-settling.every-kind')
      .task('list', 'lock-settling.list')
      .fanOut('pack', 'lock-settling.pack', { from: 'list' })
      .task('render', 'lock-settling.render', { cache: { ttl: '1h' } })
      // Never claimed here, so the child node (whose workflow is not registered) never starts.
      .task('again', 'lock-settling.again')
      .waitSignal('approve', { signal: 'ok' })
      .waitTimer('pause', { waitFor: '1h' })
      .child('sub', { workflow: 'lock-settling.sub', dependsOn: ['again'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    // Expand the fan-out: its item tasks are steps of the run, but not nodes of its own type.
    const list = await claimOne(fx, 'lock-settling.list');
    await fx.store.complete([
      { stepId: list.id, claimToken: list.claimToken, outputJson: '[1, 2, 3]' },
    ]);
    await until(
      async () =>
        (
          await fx.query(
            'SELECT 1 FROM cyclone_steps WHERE run_id = $1 AND item_index IS NOT NULL',
            [run.id],
          )
        ).length === 3,
      'the fan-out to expand',
    );

    const locked = await lockForSettlement(run.id);
    expect(locked).toMatchObject({ id: run.id, state: 'running', has_cached_tasks: true });
    expect([...locked!.node_types].sort()).toEqual(
      ['child', 'fan_out', 'task', 'wait_signal', 'wait_timer'].sort(),
    );
  });

  it('says a standalone job is one task without a cache', async () => {
    const job = runOfJob('lock-settling.job', 'null');
    await fx.submit(job);
    expect(await lockForSettlement(job.id)).toMatchObject({
      node_types: ['task'],
      has_cached_tasks: false,
    });
  });

  it('finds no unknown run', async () => {
    expect(await lockForSettlement('00000000-0000-7000-8000-000000000000')).toBeUndefined();
  });
});
