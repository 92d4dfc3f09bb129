/**
 * `migrate()` through PgBouncer in transaction mode: concurrent callers, then more of them, all
 * through the pooler. One migrates and the others find nothing to do; nothing is left on the
 * pooled server sessions (an advisory lock, a search path) to block or mislead the next caller.
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connectStore, migrate, migrationStatus } from '@cyclone/store-postgres';
import { useFaultDatabase } from '../support/database.js';
import { pgbouncerPoolMode, poolerUrl, throughPooler } from '../support/pooler.js';

const db = useFaultDatabase();

describe.skipIf(!poolerUrl)('migrate() through a transaction-mode pooler', () => {
  it('runs against PgBouncer in transaction mode', async () => {
    expect(await pgbouncerPoolMode()).toBe('transaction');
  });

  it('lets one of two concurrent callers migrate, then four more return with nothing to do', async () => {
    const schema = 'pooled_tenant';
    const url = throughPooler(db.url);
    const first = await Promise.all([
      migrate({ connectionString: url, schema }),
      migrate({ connectionString: url, schema }),
    ]);
    const status = await migrationStatus({ connectionString: url, schema });
    expect(status.pending).toEqual([]);
    expect(first.map((r) => r.applied).sort((a, b) => a - b)).toEqual([0, status.applied.length]);

    // No advisory lock outlives its call on any session of the database.
    const [locks] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
    );
    expect(locks!.n).toBe(0);
    const again = await Promise.all(
      Array.from({ length: 4 }, () => migrate({ connectionString: url, schema })),
    );
    expect(again.map((r) => r.applied)).toEqual([0, 0, 0, 0]);

    // The search path of the pooled sessions is the server's, not the migrated schema.
    const pooled = new pg.Pool({ connectionString: url, max: 4 });
    try {
      const paths = await Promise.all(
        Array.from({ length: 8 }, () => pooled.query<{ search_path: string }>('SHOW search_path')),
      );
      expect(new Set(paths.map((r) => r.rows[0]!.search_path))).toEqual(
        new Set(['"$user", public']),
      );
    } finally {
      await pooled.end();
    }

    // A store through the pooler finds the migrated schema complete.
    const { store, close } = connectStore({ connectionString: url, schema, pooler: 'transaction' });
    try {
      await expect(store.checkSchema()).resolves.toBeUndefined();
    } finally {
      await close();
    }
  });
});
