import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { runOfDefinition } from '../../src/tables/runs/new-runs.js';
import { useStore } from '../fixture.js';

const fx = useStore();

describe('engine gauges', () => {
  it('counts runs by state, discarded steps by reason, and each kind’s queue by the database clock', async () => {
    const due = await fx.job('gauge.due');
    await fx.job('gauge.due');
    await fx.job('gauge.later');
    await fx.query(
      "UPDATE cyclone_steps SET scheduled_at = now() - interval '1 minute' WHERE id = $1",
      [due.stepId],
    );
    await fx.query(
      "UPDATE cyclone_steps SET scheduled_at = now() + interval '1 hour' WHERE kind = 'gauge.later'",
    );
    const failed = await fx.job('gauge.failed');
    await fx.query(
      "UPDATE cyclone_steps SET state = 'discarded', error_kind = 'deadline', ended_at = now() WHERE id = $1",
      [failed.stepId],
    );
    await fx.query("UPDATE cyclone_runs SET state = 'failed', ended_at = now() WHERE id = $1", [
      failed.runId,
    ]);

    const gauges = await fx.store.engineGauges();
    expect(gauges.runs).toEqual([
      { state: 'failed', count: 1 },
      { state: 'running', count: 3 },
    ]);
    expect(gauges.exhausted).toEqual([{ reason: 'deadline', count: 1 }]);
    const [dueQueue, laterQueue] = gauges.queues;
    expect(dueQueue).toMatchObject({ kind: 'gauge.due', depth: 2, ready: 2 });
    expect(dueQueue!.oldestReadySeconds).toBeGreaterThanOrEqual(59);
    expect(laterQueue).toEqual({ kind: 'gauge.later', depth: 1, ready: 0, oldestReadySeconds: 0 });
  });

  it('reads the newest definition stored under a workflow name', async () => {
    const v1 = workflow('versioned').task('a', 'v.a').build();
    const v2 = workflow('versioned')
      .task('a', 'v.a')
      .task('b', 'v.b', { dependsOn: ['a'] })
      .build();
    await fx.submit(runOfDefinition(v1, '{}'));
    await fx.submit(runOfDefinition(v2, '{}'));
    await fx.query(
      "UPDATE cyclone_workflows SET created_at = now() - interval '1 day' WHERE hash = $1",
      [v1.hash],
    );
    expect(await fx.store.storedDefinition('versioned')).toMatchObject({
      name: 'versioned',
      hash: v2.hash,
    });
    expect(await fx.store.storedDefinition('unknown')).toBeUndefined();
  });
});
