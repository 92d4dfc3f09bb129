import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { newJobs } from '../../src/tables/runs/new-jobs.js';
import { runOfDefinition, runOfJob } from '../../src/tables/runs/new-runs.js';
import { until, useStore } from '../fixture.js';

const fx = useStore();

/** The key table's rows for `keys`, as `key -> run id`. */
async function keyRows(keys: string[]): Promise<Record<string, string>> {
  const rows = await fx.query<{ key: string; run_id: string }>(
    'SELECT key, run_id FROM cyclone_run_keys WHERE key = ANY($1::text[])',
    [keys],
  );
  return Object.fromEntries(rows.map((r) => [r.key, r.run_id]));
}

/** A client of its own in an open transaction, which the test ends, and its backend pid. */
async function openTransaction(): Promise<{ client: pg.PoolClient; pid: number }> {
  const client = await fx.pool.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  await client.query('BEGIN');
  return { client, pid };
}

/** Resolves once the backend `pid` waits for a lock. */
function waitingForLock(pid: number): Promise<void> {
  return until(async () => {
    const rows = await fx.query(
      `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`,
      [pid],
    );
    return rows.length === 1;
  }, `backend ${pid} to wait for a lock`);
}

describe('idempotency keys in cyclone_run_keys', () => {
  it("records each submitted key with its run, from submit and from both of enqueue's inserts", async () => {
    const def = workflow('keys-recorded').task('a', 'keys.a').build();
    const run = runOfDefinition(def, 'null', { idempotencyKey: 'rec-run' });
    const job = runOfJob('keys.job', 'null', { idempotencyKey: 'rec-job' });
    await fx.store.submit([run, job, runOfJob('keys.job', 'null')]);
    const lean = newJobs('keys.lean', ['1', '2'], { idempotencyKey: 'rec-lean', suffixKeys: true });
    await fx.store.enqueue(lean);
    expect(await keyRows(['rec-run', 'rec-job', 'rec-lean:0', 'rec-lean:1'])).toEqual({
      'rec-run': run.id,
      'rec-job': job.id,
      'rec-lean:0': lean.runIds[0],
      'rec-lean:1': lean.runIds[1],
    });
    // The run keeps its key too, for the reads that return it.
    expect((await fx.store.getRun(run.id))?.idempotencyKey).toBe('rec-run');
  });

  it('lists the run that holds a key, and none for a key nobody holds', async () => {
    const run = runOfJob('keys.listed', 'null', { idempotencyKey: 'listed' });
    await fx.store.submit([run, runOfJob('keys.listed', 'null')]);
    const listed = await fx.store.listRuns({ idempotencyKey: 'listed' });
    expect(listed.runs.map((r) => [r.id, r.idempotencyKey])).toEqual([[run.id, 'listed']]);
    expect((await fx.store.listRuns({ idempotencyKey: 'nobody' })).runs).toEqual([]);
  });

  it('creates the first run of a batch that names a key twice and answers the second with it', async () => {
    const first = runOfJob('keys.twice', 'null', { idempotencyKey: 'twice' });
    const other = runOfJob('keys.twice', 'null');
    const second = runOfJob('keys.twice', 'null', { idempotencyKey: 'twice' });
    expect(await fx.store.submit([first, other, second])).toEqual([
      { runId: first.id, created: true },
      { runId: other.id, created: true },
      { runId: first.id, created: false },
    ]);
    const jobs = newJobs('keys.twice-lean', ['1', '2', '3'], { idempotencyKey: 'twice-lean' });
    expect(await fx.store.enqueue(jobs)).toEqual([
      { runId: jobs.runIds[0], created: true },
      { runId: jobs.runIds[0], created: false },
      { runId: jobs.runIds[0], created: false },
    ]);
    const runs = await fx.query('SELECT id FROM cyclone_runs WHERE workflow LIKE $1', [
      'keys.twice%',
    ]);
    expect(runs).toHaveLength(3);
    expect(await keyRows(['twice', 'twice-lean'])).toEqual({
      twice: first.id,
      'twice-lean': jobs.runIds[0],
    });
  });

  it('makes the second of two concurrent submits of one key wait, then answer with the run that committed', async () => {
    const a = await openTransaction();
    const b = await openTransaction();
    try {
      const runA = runOfJob('keys.race', 'null', { idempotencyKey: 'race' });
      const runB = runOfJob('keys.race', 'null', { idempotencyKey: 'race' });
      expect(await fx.store.submit([runA], a.client)).toEqual([{ runId: runA.id, created: true }]);
      const second = fx.store.submit([runB], b.client);
      await waitingForLock(b.pid);
      await a.client.query('COMMIT');
      expect(await second).toEqual([{ runId: runA.id, created: false }]);
      await b.client.query('COMMIT');
      expect(
        await fx.query('SELECT id FROM cyclone_runs WHERE idempotency_key = $1', ['race']),
      ).toEqual([{ id: runA.id }]);
      expect(await keyRows(['race'])).toEqual({ race: runA.id });
    } finally {
      a.client.release();
      b.client.release();
    }
  });

  it('takes a batch of keys in their sorted order, so two submits naming them in opposite orders do not deadlock', async () => {
    const a = await openTransaction();
    const b = await openTransaction();
    try {
      // The first submit detects a deadlock at once, where it would lose the wait to the second.
      await a.client.query(`SET LOCAL deadlock_timeout = '20ms'`);
      const heldB = runOfJob('keys.order', 'null', { idempotencyKey: 'order-b' });
      await fx.store.submit([heldB], a.client);
      // Named c then b: taken in the order b, c, so the submit waits for b holding nothing.
      const second = fx.store.submit(
        [
          runOfJob('keys.order', 'null', { idempotencyKey: 'order-c' }),
          runOfJob('keys.order', 'null', { idempotencyKey: 'order-b' }),
        ],
        b.client,
      );
      await waitingForLock(b.pid);
      // Taken in the other order it would hold c, and this insert of c would deadlock.
      const heldC = runOfJob('keys.order', 'null', { idempotencyKey: 'order-c' });
      expect(await fx.store.submit([heldC], a.client)).toEqual([
        { runId: heldC.id, created: true },
      ]);
      await a.client.query('COMMIT');
      expect(await second).toEqual([
        { runId: heldC.id, created: false },
        { runId: heldB.id, created: false },
      ]);
      await b.client.query('COMMIT');
      expect(await keyRows(['order-b', 'order-c'])).toEqual({
        'order-b': heldB.id,
        'order-c': heldC.id,
      });
    } finally {
      // On a failure, a's end lets b's submit go on, so neither connection is left waiting.
      await a.client.query('ROLLBACK').catch(() => undefined);
      await b.client.query('ROLLBACK').catch(() => undefined);
      a.client.release();
      b.client.release();
    }
  });

  it('lets the waiting submit create its run when the first rolls back', async () => {
    const a = await openTransaction();
    const b = await openTransaction();
    try {
      const runA = runOfJob('keys.rollback', 'null', { idempotencyKey: 'rolled' });
      const jobsB = newJobs('keys.rollback', ['1'], { idempotencyKey: 'rolled' });
      await fx.store.submit([runA], a.client);
      const second = fx.store.enqueue(jobsB, b.client);
      await waitingForLock(b.pid);
      await a.client.query('ROLLBACK');
      expect(await second).toEqual([{ runId: jobsB.runIds[0], created: true }]);
      await b.client.query('COMMIT');
      expect(await keyRows(['rolled'])).toEqual({ rolled: jobsB.runIds[0] });
    } finally {
      a.client.release();
      b.client.release();
    }
  });

  it('frees a key when retention deletes its run, and not before', async () => {
    const kept = runOfJob('keys.retained', 'null', { idempotencyKey: 'retained' });
    const old = runOfJob('keys.retained', 'null', { idempotencyKey: 'expired' });
    await fx.store.submit([kept, old]);
    await fx.store.cancelRun(kept.id);
    await fx.store.cancelRun(old.id);
    await fx.query(
      `UPDATE cyclone_runs SET created_at = now() - interval '2 days',
                               ended_at = now() - interval '2 days' WHERE id = $1`,
      [old.id],
    );
    expect(await fx.store.deleteFinishedRuns(86_400_000)).toBe(1);
    expect(await keyRows(['retained', 'expired'])).toEqual({ retained: kept.id });
    // The deleted run's key can be taken again; the kept run's still answers with it.
    const again = runOfJob('keys.retained', 'null', { idempotencyKey: 'expired' });
    const [taken] = await fx.store.submit([again]);
    expect(taken).toEqual({ runId: again.id, created: true });
    const [answered] = await fx.store.submit([
      runOfJob('keys.retained', 'null', { idempotencyKey: 'retained' }),
    ]);
    expect(answered).toEqual({ runId: kept.id, created: false });
  });
});
