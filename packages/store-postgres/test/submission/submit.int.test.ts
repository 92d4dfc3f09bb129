import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

describe('submit', () => {
  it('inserts a job as a running run of one available step, with a run_submitted event by submit', async () => {
    const { runId, stepId } = await fx.job('mail.send');
    expect(await fx.run(runId)).toMatchObject({
      state: 'running',
      open_steps: 1,
      workflow: 'mail.send',
    });
    expect(await fx.step(stepId)).toMatchObject({
      state: 'available',
      node_type: 'task',
      attempts: 0,
    });
    expect(await fx.events(runId)).toEqual([['run_submitted', null, 'running', 'submit']]);
  });

  it('inserts a workflow with each node in the state its dependencies give it', async () => {
    const def = workflow('submit-shape')
      .task('a', 'k.a')
      .task('b', 'k.b', { dependsOn: ['a'] })
      .build();
    const run = runOfDefinition(def, '{"x":1}');
    await fx.submit(run);
    const steps = await fx.query<{ node: string; state: string; deps_remaining: number }>(
      'SELECT node, state, deps_remaining FROM cyclone_steps WHERE run_id = $1 ORDER BY node',
      [run.id],
    );
    expect(steps).toEqual([
      { node: 'a', state: 'available', deps_remaining: 0 },
      { node: 'b', state: 'pending', deps_remaining: 1 },
    ]);
    expect((await fx.run(run.id)).input).toEqual({ x: 1 });
  });

  it("gives every step of a workflow its run's millisecond, in node order", async () => {
    const def = workflow('submit-period')
      .task('a', 'k.a')
      .waitSignal('w', { signal: 'go' })
      .waitTimer('t', { waitFor: '1h' })
      .child('c', { workflow: 'submit-period-child' })
      .fanOut('f', 'k.f', { from: 'a', dependsOn: ['c'] })
      .task('z', 'k.z', { dependsOn: ['w', 't', 'f'] })
      .build();
    const run = runOfDefinition(def, 'null');
    await fx.submit(run);
    const steps = await fx.query<{ id: string; node: string }>(
      'SELECT id, node FROM cyclone_steps WHERE run_id = $1 ORDER BY created_at, id',
      [run.id],
    );
    expect(steps.map((s) => s.node)).toEqual(def.nodes.map((n) => n.name));
    for (const step of steps) {
      expect(step.id.slice(0, 13), step.node).toBe(run.id.slice(0, 13));
      expect(step.id, step.node).not.toBe(run.id);
    }
  });

  it('returns the existing run for an idempotency key that is taken, inserting nothing', async () => {
    const first = runOfJob('mail.send', 'null', { idempotencyKey: 'order-7' });
    const second = runOfJob('mail.send', 'null', { idempotencyKey: 'order-7' });
    const [a] = await fx.store.submit([first]);
    const [b] = await fx.store.submit([second]);
    expect(a).toEqual({ runId: first.id, created: true });
    expect(b).toEqual({ runId: first.id, created: false });
    const rows = await fx.query('SELECT id FROM cyclone_runs WHERE idempotency_key = $1', [
      'order-7',
    ]);
    expect(rows).toHaveLength(1);
  });

  it("writes nothing when the caller's transaction rolls back", async () => {
    const client = await fx.pool.connect();
    const run = runOfJob('mail.send', 'null');
    try {
      await client.query('BEGIN');
      await fx.store.submit([run], client);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect(await fx.query('SELECT 1 FROM cyclone_runs WHERE id = $1', [run.id])).toHaveLength(0);
  });
});
