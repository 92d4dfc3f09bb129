import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable } from '@cyclone/test-db';
import { migrate } from '../../src/migration/migrate.js';
import { PostgresStore } from '../../src/store.js';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { useMigrationsBefore } from './migrations-before.js';

const SCHEMA = 'before_partitions';
/** The migration that partitions the events table; the schema starts at the one before it. */
const migrations = useMigrationsBefore('0021_events_partitioned_by_run_period');

const claimOf = async (store: PostgresStore, kind: string) => {
  const [step] = await store.claim({ kinds: [kind], limit: 1, workerId: 'w', leaseMs: 60_000 });
  if (!step) throw new Error(`nothing of kind ${kind} to claim`);
  return step;
};

describe('the migration that partitions the events table', () => {
  it('keeps every run of every state and its history, and every run then finishes', async () => {
    const pool = migrations.pool;
    await migrate({ pool, schema: SCHEMA, migrationsFolder: migrations.before });
    // This code's claims read the fair-share table and its submits write the key table, which
    // later migrations add: the schema before partitioning gets empty ones for them, taken away
    // again before the migration.
    await pool.query(
      `CREATE TABLE "${SCHEMA}".cyclone_fair_shares (kind text PRIMARY KEY, weights jsonb NOT NULL,
         cursor_key text, cursor_keyless boolean NOT NULL, cursor_used int NOT NULL)`,
    );
    await pool.query(
      `CREATE TABLE "${SCHEMA}".cyclone_run_keys (key text PRIMARY KEY, run_id uuid NOT NULL)`,
    );
    const store = new PostgresStore({ pool, schema: SCHEMA });

    // Finished: a job claimed and completed.
    const finished = runOfJob('mig.finished', 'null');
    // Running: a job claimed, its handler still at work across the migration.
    const running = runOfJob('mig.running', 'null');
    // Scheduled: a job due later.
    const scheduled = runOfJob('mig.scheduled', 'null', {
      runAt: new Date(Date.now() + 3_600_000),
    });
    // Paused: a job whose run an operator paused (stored events: the pause).
    const paused = runOfJob('mig.paused', 'null');
    // Waiting: a workflow waiting for a signal.
    const waiting = runOfDefinition(
      workflow('mig-wait')
        .waitSignal('go', { signal: 'go' })
        .task('after', 'mig.after', { dependsOn: ['go'] })
        .build(),
      'null',
    );
    await store.submit([finished, running, scheduled, paused, waiting]);
    const f = await claimOf(store, 'mig.finished');
    await store.complete([{ stepId: f.id, claimToken: f.claimToken, outputJson: '1' }]);
    const r = await claimOf(store, 'mig.running');
    await store.pauseRun(paused.id);
    const historyBefore = await store.listEvents(paused.id);

    await pool.query(`DROP TABLE "${SCHEMA}".cyclone_fair_shares, "${SCHEMA}".cyclone_run_keys`);
    expect((await migrate({ pool, schema: SCHEMA })).applied).toBeGreaterThanOrEqual(1);
    const { rows } = await pool.query<{ partitioned: boolean }>(
      `SELECT c.relkind = 'p' AS partitioned FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND c.relname = 'cyclone_events'`,
      [SCHEMA],
    );
    expect(rows).toEqual([{ partitioned: true }]);
    // What was stored before is read back as it was.
    expect(await store.listEvents(paused.id)).toEqual(historyBefore);
    expect((await store.getRun(finished.id))?.state).toBe('completed');

    // Every run finishes as it would have.
    await store.complete([{ stepId: r.id, claimToken: r.claimToken, outputJson: '2' }]);
    await store.resumeRun(paused.id);
    const p = await claimOf(store, 'mig.paused');
    await store.complete([{ stepId: p.id, claimToken: p.claimToken, outputJson: '3' }]);
    await pool.query(`UPDATE ${SCHEMA}.cyclone_steps SET scheduled_at = now() WHERE run_id = $1`, [
      scheduled.id,
    ]);
    const s = await claimOf(store, 'mig.scheduled');
    await store.complete([{ stepId: s.id, claimToken: s.claimToken, outputJson: '4' }]);
    await store.signal({ runId: waiting.id, name: 'go', payloadJson: '{}' });
    const a = await claimOf(store, 'mig.after');
    await store.complete([{ stepId: a.id, claimToken: a.claimToken, outputJson: '5' }]);

    for (const run of [finished, running, scheduled, paused, waiting]) {
      expect((await store.getRun(run.id))?.state, run.workflow).toBe('completed');
    }
    const history = await store.listEvents(paused.id);
    expect(history.slice(0, historyBefore.length - 1)).toEqual(historyBefore.slice(0, -1));
    expect(history.map((e) => e.type)).toContain('run_resumed');
    await expectEventsFollowTable(pool, 0, SCHEMA);

    // Retention still deletes the migrated runs' events, which sit in the initial partition.
    expect(await store.deleteFinishedRuns(0)).toBe(5);
    const { rows: left } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${SCHEMA}.cyclone_events`,
    );
    expect(left).toEqual([{ n: 0 }]);
  });
});
