import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { PostgresStore } from '../../src/store.js';
import { claimOne, until, useStore } from '../fixture.js';

const fx = useStore();

/**
 * A parent run whose only node is done but which is still running: the state the settlement of a
 * child run's end must resolve. (The engine does not start child runs yet; the parent's node is
 * finished by hand, standing in for the child-node completion a later version writes.)
 */
async function parentAwaitingSettlement(): Promise<{ parentId: string; childStepId: string }> {
  const parent = runOfJob('crash.parent', 'null');
  await fx.submit(parent);
  await fx.query(
    `UPDATE cyclone_steps SET state = 'completed', ended_at = now() WHERE run_id = $1`,
    [parent.id],
  );
  await fx.query('UPDATE cyclone_runs SET open_steps = 0 WHERE id = $1', [parent.id]);
  const child = runOfJob('crash.child', 'null', {
    parentRunId: parent.id,
    parentStepId: parent.steps[0]!.id,
  });
  await fx.submit(child);
  return { parentId: parent.id, childStepId: child.steps[0]!.id };
}

const markers = (runId: string) =>
  fx.query('SELECT run_id FROM cyclone_settlements WHERE run_id = $1', [runId]);

describe('settlement after a completion', () => {
  it('settles the run the completion marked, and clears the marker', async () => {
    const { parentId, childStepId } = await parentAwaitingSettlement();
    const claimed = await claimOne(fx, 'crash.child');
    const accepted = await fx.store.complete([
      { stepId: childStepId, claimToken: claimed.claimToken, outputJson: '"done"' },
    ]);
    expect([...accepted]).toEqual([childStepId]);
    expect((await fx.run(parentId)).state).toBe('completed');
    expect(await markers(parentId)).toHaveLength(0);
  });

  it('survives a connection killed between the completion and the settlement: settlePending finishes the run', async () => {
    const { parentId, childStepId } = await parentAwaitingSettlement();
    const claimed = await claimOne(fx, 'crash.child');

    // Hold the parent's lock, so the settlement that follows the completion statement waits on it.
    const blocker = new pg.Client({ connectionString: fx.db.url });
    blocker.on('error', () => undefined);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM cyclone_runs WHERE id = $1 FOR UPDATE', [parentId]);
    const blockerPid = (await blocker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))
      .rows[0]!.pid;

    const completing = fx.store.complete([
      { stepId: childStepId, claimToken: claimed.claimToken, outputJson: '"done"' },
    ]);
    // The completion has committed once the settlement waits for the lock; kill that backend.
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
    }, 'the settlement to wait for the parent run');
    const accepted = await completing;
    await blocker.query('ROLLBACK');
    await blocker.end();

    // The completion stands; the parent was not settled, but its marker was written with it.
    expect([...accepted]).toEqual([childStepId]);
    expect(await fx.step(childStepId)).toMatchObject({ state: 'completed' });
    expect((await fx.run(parentId)).state).toBe('running');
    expect(await markers(parentId)).toHaveLength(1);

    expect(await fx.store.settlePending()).toBe(1);
    expect((await fx.run(parentId)).state).toBe('completed');
    expect(await markers(parentId)).toHaveLength(0);
    expect((await fx.events(parentId)).at(-1)).toEqual([
      'run_completed',
      'running',
      'completed',
      'complete',
    ]);
    expect(await fx.store.settlePending()).toBe(0);
  });

  it('logs a settlement that fails after the completion committed, with the run id, and leaves it for settlePending', async () => {
    const { parentId, childStepId } = await parentAwaitingSettlement();
    const claimed = await claimOne(fx, 'crash.child');
    const warnings: { fields: Record<string, unknown>; message: string }[] = [];
    const store = new PostgresStore({
      pool: fx.pool,
      tableLayout: fx.tableLayout,
      logger: { warn: (fields, message) => warnings.push({ fields, message }) },
    });
    // Clearing a marker fails while this trigger exists: the settlement rolls back.
    await fx.query(`CREATE FUNCTION refuse_clear() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'settlement refused by the test'; END $$`);
    await fx.query(`CREATE TRIGGER refuse_clear BEFORE DELETE ON cyclone_settlements
      FOR EACH ROW EXECUTE FUNCTION refuse_clear()`);
    try {
      const accepted = await store.complete([
        { stepId: childStepId, claimToken: claimed.claimToken, outputJson: '"done"' },
      ]);
      expect([...accepted]).toEqual([childStepId]);
    } finally {
      await fx.query('DROP TRIGGER refuse_clear ON cyclone_settlements');
      await fx.query('DROP FUNCTION refuse_clear()');
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields['runId']).toBe(parentId);
    expect(String(warnings[0]!.fields['err'])).toContain('settlement refused by the test');
    expect(warnings[0]!.message).toContain('settle-pending');
    expect((await fx.run(parentId)).state).toBe('running');
    expect(await markers(parentId)).toHaveLength(1);

    expect(await store.settlePending()).toBe(1);
    expect((await fx.run(parentId)).state).toBe('completed');
    expect(await markers(parentId)).toHaveLength(0);
  });

  it('writes no marker for a completion that needs no settlement (the hot path)', async () => {
    const { runId, stepId } = await fx.job('crash.plain');
    const claimed = await claimOne(fx, 'crash.plain');
    await fx.store.complete([{ stepId, claimToken: claimed.claimToken, outputJson: '1' }]);
    expect((await fx.run(runId)).state).toBe('completed');
    expect(await fx.query('SELECT run_id FROM cyclone_settlements')).toHaveLength(0);
  });
});
