import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { migrate } from '../../src/migration/migrate.js';
import { PostgresStore } from '../../src/store.js';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { useMigrationsBefore } from './migrations-before.js';

/** The migration that partitions runs and steps; a schema starts at the one before it. */
const migrations = useMigrationsBefore('0024_runs_and_steps_partitioned_by_run_period');

const claimOf = async (store: PostgresStore, kind: string) => {
  const [step] = await store.claim({ kinds: [kind], limit: 1, workerId: 'w', leaseMs: 60_000 });
  if (!step) throw new Error(`nothing of kind ${kind} to claim`);
  return step;
};

/** The bound of a table's partitions, by partition name. */
async function bounds(schema: string, table: string): Promise<Record<string, string>> {
  const { rows } = await migrations.pool.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = to_regclass(format('%I.%I', $1::text, $2::text))`,
    [schema, table],
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.bound]));
}

describe('the migration that partitions runs and steps', () => {
  it('keeps every run of every state, and every run then finishes as it would have', async () => {
    const schema = 'before_run_partitions';
    const pool = migrations.pool;
    await migrate({ pool, schema, migrationsFolder: migrations.before });
    const store = new PostgresStore({ pool, schema });

    // Finished: a job claimed and completed.
    const finished = runOfJob('mig.finished', 'null');
    // Running: a job claimed, its handler still at work across the migration.
    const running = runOfJob('mig.running', 'null');
    // Scheduled: a job due later.
    const scheduled = runOfJob('mig.scheduled', 'null', {
      runAt: new Date(Date.now() + 3_600_000),
    });
    // Paused: a job whose run an operator paused.
    const paused = runOfJob('mig.paused', 'null');
    // Waiting: a workflow waiting for a signal, then a fan-out whose items are made after it.
    const waiting = runOfDefinition(
      workflow('mig-wait')
        .waitSignal('go', { signal: 'go' })
        .task('list', 'mig.list', { dependsOn: ['go'] })
        .fanOut('each', 'mig.item', { from: 'list', dependsOn: ['list'] })
        .build(),
      'null',
    );
    await store.submit([finished, running, scheduled, paused, waiting]);
    const f = await claimOf(store, 'mig.finished');
    await store.complete([{ stepId: f.id, claimToken: f.claimToken, outputJson: '1' }]);
    const r = await claimOf(store, 'mig.running');
    await store.pauseRun(paused.id);
    const historyBefore = await store.listEvents(paused.id);

    expect((await migrate({ pool, schema })).applied).toBeGreaterThanOrEqual(1);
    const runs = await bounds(schema, 'cyclone_runs');
    expect(Object.keys(runs).sort()).toEqual(['cyclone_runs_default', 'cyclone_runs_initial']);
    expect(runs.cyclone_runs_initial).toMatch(
      /^FOR VALUES FROM \(MINVALUE\) TO \('[0-9a-f-]{36}'\)$/,
    );
    expect(Object.keys(await bounds(schema, 'cyclone_steps')).sort()).toEqual([
      'cyclone_steps_default',
      'cyclone_steps_initial',
    ]);
    // What was stored before is read back as it was.
    expect(await store.listEvents(paused.id)).toEqual(historyBefore);
    expect((await store.getRun(finished.id))?.state).toBe('completed');

    // Every run finishes as it would have.
    await store.complete([{ stepId: r.id, claimToken: r.claimToken, outputJson: '2' }]);
    await store.resumeRun(paused.id);
    const p = await claimOf(store, 'mig.paused');
    await store.complete([{ stepId: p.id, claimToken: p.claimToken, outputJson: '3' }]);
    await pool.query(`UPDATE ${schema}.cyclone_steps SET scheduled_at = now() WHERE run_id = $1`, [
      scheduled.id,
    ]);
    const s = await claimOf(store, 'mig.scheduled');
    await store.complete([{ stepId: s.id, claimToken: s.claimToken, outputJson: '4' }]);
    await store.signal({ runId: waiting.id, name: 'go', payloadJson: '{}' });
    const l = await claimOf(store, 'mig.list');
    await store.complete([{ stepId: l.id, claimToken: l.claimToken, outputJson: '[1,2]' }]);
    for (let i = 0; i < 2; i++) {
      const item = await claimOf(store, 'mig.item');
      await store.complete([{ stepId: item.id, claimToken: item.claimToken, outputJson: '0' }]);
    }

    for (const run of [finished, running, scheduled, paused, waiting]) {
      expect((await store.getRun(run.id))?.state, run.workflow).toBe('completed');
    }
    const history = await store.listEvents(paused.id);
    expect(history.slice(0, historyBefore.length - 1)).toEqual(historyBefore.slice(0, -1));
    expect(history.map((e) => e.type)).toContain('run_resumed');
    await expectEventsFollowTable(pool, 0, schema);

    // Retention still deletes the migrated runs, which sit in the initial partitions.
    expect(await store.deleteFinishedRuns(0)).toBe(5);
    const { rows: left } = await pool.query<{ n: number }>(
      `SELECT (SELECT count(*) FROM ${schema}.cyclone_runs)::int
            + (SELECT count(*) FROM ${schema}.cyclone_steps)::int AS n`,
    );
    expect(left).toEqual([{ n: 0 }]);
  });

  it('takes its bound from a validated CHECK (id < bound), which spares the attach its scan', async () => {
    const schema = 'checked_run_partitions';
    const pool = migrations.pool;
    await migrate({ pool, schema, migrationsFolder: migrations.before });
    const store = new PostgresStore({ pool, schema });
    const job = runOfJob('mig.checked', 'null');
    await store.submit([job]);
    // The documented online steps (docs/scaling.md), a bound two days ahead.
    const ms = (Math.floor(Date.now() / 86_400_000) + 2) * 86_400_000;
    const hex = ms.toString(16).padStart(12, '0');
    const bound = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
    for (const table of ['cyclone_steps', 'cyclone_runs']) {
      await pool.query(
        `ALTER TABLE ${schema}.${table} ADD CONSTRAINT ${table}_id_bound CHECK (id < '${bound}') NOT VALID`,
      );
      await pool.query(`ALTER TABLE ${schema}.${table} VALIDATE CONSTRAINT ${table}_id_bound`);
    }

    await migrate({ pool, schema });
    for (const table of ['cyclone_steps', 'cyclone_runs']) {
      expect((await bounds(schema, table))[`${table}_initial`]).toBe(
        `FOR VALUES FROM (MINVALUE) TO ('${bound}')`,
      );
      // The constraint said what the bound says now: it is gone, from the parent as well.
      const { rows } = await pool.query(`SELECT conname FROM pg_constraint WHERE conname = $1`, [
        `${table}_id_bound`,
      ]);
      expect(rows).toEqual([]);
    }
    const c = await claimOf(store, 'mig.checked');
    await store.complete([{ stepId: c.id, claimToken: c.claimToken, outputJson: 'null' }]);
    expect((await store.getRun(job.id))?.state).toBe('completed');
  });
});
