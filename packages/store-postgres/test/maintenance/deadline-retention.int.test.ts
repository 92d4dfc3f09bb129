import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { claimOne, useStore } from '../fixture.js';
import { statesOf, stepOf } from '../operator/helpers.js';

const fx = useStore();

describe('expireRunDeadlines', () => {
  it('discards the open steps of a running run past its deadline and fails it once', async () => {
    const def = workflow('deadline-wf')
      .task('done', 'dl.done')
      .task('run', 'dl.run')
      .task('later', 'dl.later', { dependsOn: ['done', 'run'] })
      .waitSignal('w', { signal: 'go' })
      .task('c', 'dl.c')
      .build();
    const run = runOfDefinition(def, 'null', { deadlineMs: 60_000 });
    await fx.submit(run);
    const done = await claimOne(fx, 'dl.done');
    await fx.store.complete([{ stepId: done.id, claimToken: done.claimToken, outputJson: '1' }]);
    const running = await claimOne(fx, 'dl.run');
    const c = await stepOf(fx, run.id, 'c');
    await fx.query(
      `UPDATE cyclone_steps SET node_type = 'child', kind = NULL, state = 'waiting_child' WHERE id = $1`,
      [c],
    );
    expect(await fx.store.expireRunDeadlines()).toBe(0);
    await fx.query(
      `UPDATE cyclone_runs SET deadline_at = now() - interval '1 second' WHERE id = $1`,
      [run.id],
    );

    expect(await fx.store.expireRunDeadlines()).toBe(1);

    expect(await statesOf(fx, run.id)).toEqual({
      done: 'completed',
      run: 'discarded',
      later: 'discarded',
      w: 'discarded',
      c: 'discarded',
    });
    expect(await fx.step(running.id)).toMatchObject({
      error_kind: 'deadline',
      error: 'run deadline exceeded',
    });
    expect(await fx.run(run.id)).toMatchObject({
      state: 'failed',
      error_kind: 'deadline',
      error: 'run deadline exceeded',
      open_steps: 0,
    });
    const events = await fx.events(run.id);
    for (const from of ['running', 'pending', 'waiting_signal', 'waiting_child']) {
      expect(events).toContainEqual(['step_discarded', from, 'discarded', 'run_deadline']);
    }
    expect(events.filter((e) => e[0] === 'run_failed')).toEqual([
      ['run_failed', 'running', 'failed', 'run_deadline'],
    ]);
    // Idempotent: a second pass finds nothing, and the late completion is fenced out.
    expect(await fx.store.expireRunDeadlines()).toBe(0);
    const accepted = await fx.store.complete([
      { stepId: running.id, claimToken: running.claimToken, outputJson: '1' },
    ]);
    expect(accepted.size).toBe(0);
  });

  it('leaves a paused run and its paused steps alone', async () => {
    const run = runOfDefinition(workflow('deadline-paused').task('p', 'dlp.p').build(), 'null', {
      deadlineMs: 60_000,
    });
    await fx.submit(run);
    await fx.store.pauseRun(run.id);
    await fx.query(
      `UPDATE cyclone_runs SET deadline_at = now() - interval '1 second' WHERE id = $1`,
      [run.id],
    );
    expect(await fx.store.expireRunDeadlines()).toBe(0);
    expect(await statesOf(fx, run.id)).toEqual({ p: 'paused' });
    expect((await fx.run(run.id)).state).toBe('paused');
  });
});

describe('deleteFinishedRuns', () => {
  it('deletes finished runs older than the retention with their rows, in bounded batches', async () => {
    const old = [];
    for (let i = 0; i < 3; i++) {
      const job = await fx.job('ret.old');
      await fx.store.cancelRun(job.runId);
      old.push(job.runId);
    }
    const fresh = await fx.job('ret.fresh');
    await fx.store.cancelRun(fresh.runId);
    const live = await fx.job('ret.live');
    await fx.query(
      `UPDATE cyclone_runs SET created_at = now() - interval '2 days', ended_at = now() - interval '2 days'
       WHERE id = ANY($1::uuid[])`,
      [[...old]],
    );
    await fx.query(`UPDATE cyclone_runs SET created_at = now() - interval '2 days' WHERE id = $1`, [
      live.runId,
    ]);
    await fx.query(`INSERT INTO cyclone_signals (run_id, name) VALUES ($1, 'x')`, [old[0]]);

    expect(await fx.store.deleteFinishedRuns(86_400_000, 2)).toBe(2);
    expect(await fx.store.deleteFinishedRuns(86_400_000, 2)).toBe(1);
    expect(await fx.store.deleteFinishedRuns(86_400_000, 2)).toBe(0);
    for (const table of ['cyclone_runs', 'cyclone_steps', 'cyclone_events', 'cyclone_signals']) {
      const col = table === 'cyclone_runs' ? 'id' : 'run_id';
      const rows = await fx.query(`SELECT 1 FROM ${table} WHERE ${col} = ANY($1::uuid[])`, [old]);
      expect(rows, table).toHaveLength(0);
    }
    expect((await fx.run(fresh.runId)).state).toBe('cancelled');
    expect((await fx.run(live.runId)).state).toBe('running');
  });
});
