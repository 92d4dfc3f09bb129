import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '@cyclone/test-db';
import { migrate } from '../../src/migration/migrate.js';
import { PostgresStore } from '../../src/store.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';

const db = useTestDatabase();
let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 8 });
  pool.on('error', () => undefined); // the database's drop ends idle connections
});
afterAll(() => pool.end());

describe('migrate', () => {
  it('finds nothing to do on a database that is up to date', async () => {
    expect(await migrate({ pool })).toEqual({ applied: 0 });
  });

  it('lets one of several concurrent callers migrate a new schema while the others wait', async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () => migrate({ connectionString: db.url, schema: 'tenant_a' })),
    );
    const applied = results.map((r) => r.applied).sort();
    expect(applied[0]).toBe(0);
    expect(applied.filter((n) => n > 0)).toHaveLength(1);
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM information_schema.tables
       WHERE table_schema = 'tenant_a' AND table_name LIKE 'cyclone\\_%'`,
    );
    expect(rows[0]!.n).toBeGreaterThanOrEqual(6);
  });

  it('serves a store in that schema without touching the public tables', async () => {
    const store = new PostgresStore({ pool, schema: 'tenant_a' });
    const [submitted] = await store.submit([runOfJob('mail.send', '{"to":"ada"}')]);
    expect((await store.getRun(submitted!.runId))?.state).toBe('running');
    const { rows } = await pool.query('SELECT 1 FROM public.cyclone_runs WHERE id = $1', [
      submitted!.runId,
    ]);
    expect(rows).toHaveLength(0);
  });
});

describe('the schema', () => {
  it('refuses a run state the reference does not have', async () => {
    const store = new PostgresStore({ pool });
    const [submitted] = await store.submit([runOfJob('mail.send', 'null')]);
    await expect(
      pool.query(`UPDATE cyclone_runs SET state = 'pending' WHERE id = $1`, [submitted!.runId]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'cyclone_runs_state_check' });
  });

  it('refuses a step state or error kind the reference does not have', async () => {
    const store = new PostgresStore({ pool });
    const [submitted] = await store.submit([runOfJob('mail.send', 'null')]);
    await expect(
      pool.query(`UPDATE cyclone_steps SET state = 'exhausted' WHERE run_id = $1`, [
        submitted!.runId,
      ]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'cyclone_steps_state_check' });
    await expect(
      pool.query(`UPDATE cyclone_steps SET error_kind = 'fatal' WHERE run_id = $1`, [
        submitted!.runId,
      ]),
    ).rejects.toMatchObject({ code: '23514', constraint: 'cyclone_steps_error_kind_check' });
  });
});
