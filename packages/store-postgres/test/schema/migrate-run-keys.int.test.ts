import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/migration/migrate.js';
import { PostgresStore } from '../../src/store.js';
import { runOfJob } from '../../src/tables/runs/new-runs.js';
import { useMigrationsBefore } from './migrations-before.js';

const SCHEMA = 'before_run_keys';
/** The migration that moves idempotency keys to their own table; the schema starts before it. */
const migrations = useMigrationsBefore('0023_run_keys');

describe('the migration that moves idempotency keys to cyclone_run_keys', () => {
  it('copies every key, drops the unique index, and a key taken before still answers with its run', async () => {
    const pool = migrations.pool;
    await migrate({ pool, schema: SCHEMA, migrationsFolder: migrations.before });
    const q = (sql: string, values: unknown[] = []) => pool.query(sql, values);
    // Runs as the version before wrote them: the key on the run row, unique by its index.
    const keyed = [runOfJob('mig.keyed', 'null'), runOfJob('mig.keyed', 'null')];
    const unkeyed = runOfJob('mig.unkeyed', 'null');
    for (const [i, run] of [...keyed, unkeyed].entries()) {
      await q(
        `INSERT INTO ${SCHEMA}.cyclone_runs (id, workflow, idempotency_key, open_steps)
         VALUES ($1, $2, $3, 1)`,
        [run.id, run.workflow, i < keyed.length ? `old-${i}` : null],
      );
      await q(
        `INSERT INTO ${SCHEMA}.cyclone_steps (id, run_id, node, node_type, kind, state, max_attempts)
         VALUES ($1, $1, $2, 'task', $2, 'available', 1)`,
        [run.id, run.workflow],
      );
    }

    expect((await migrate({ pool, schema: SCHEMA })).applied).toBeGreaterThanOrEqual(1);
    const { rows: keys } = await q(
      `SELECT key, run_id FROM ${SCHEMA}.cyclone_run_keys ORDER BY key`,
    );
    expect(keys).toEqual([
      { key: 'old-0', run_id: keyed[0]!.id },
      { key: 'old-1', run_id: keyed[1]!.id },
    ]);
    const { rows: indexes } = await q(
      `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'cyclone_runs'
         AND indexdef LIKE '%idempotency_key%'`,
      [SCHEMA],
    );
    expect(indexes).toEqual([]);
    // An earlier version's insert names that index as its arbiter: it fails now
    // (docs/upgrading.md).
    await expect(
      q(
        `INSERT INTO ${SCHEMA}.cyclone_runs (id, workflow, idempotency_key, open_steps)
         VALUES ($1, 'old', 'old-2', 1)
         ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
        [runOfJob('old', 'null').id],
      ),
    ).rejects.toMatchObject({ code: '42P10' });

    const store = new PostgresStore({ pool, schema: SCHEMA });
    const retried = runOfJob('mig.keyed', 'null', { idempotencyKey: 'old-1' });
    expect(await store.submit([retried])).toEqual([{ runId: keyed[1]!.id, created: false }]);
    const fresh = runOfJob('mig.keyed', 'null', { idempotencyKey: 'new-0' });
    expect(await store.submit([fresh])).toEqual([{ runId: fresh.id, created: true }]);
    expect((await store.getRun(keyed[0]!.id))?.idempotencyKey).toBe('old-0');

    // Retention frees a migrated key with its run.
    await store.cancelRun(keyed[0]!.id);
    expect(await store.deleteFinishedRuns(0)).toBe(1);
    const again = runOfJob('mig.keyed', 'null', { idempotencyKey: 'old-0' });
    expect(await store.submit([again])).toEqual([{ runId: again.id, created: true }]);
  });
});
