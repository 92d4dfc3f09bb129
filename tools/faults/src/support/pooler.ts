/**
 * The pooler of the pooler suite (`npm run test:pooler`): `CYCLONE_TEST_POOLER_URL`, a URL of any
 * database through a connection pooler in transaction mode (PgBouncer, started by
 * `scripts/pgbouncer.sh`) in front of the test server, whose every database it serves by name.
 * Without it the suite skips, saying so once.
 */
import pg from 'pg';

/** The pooler's URL, or undefined when none is configured. */
export const poolerUrl: string | undefined = process.env.CYCLONE_TEST_POOLER_URL || undefined;

if (!poolerUrl) {
  console.warn(
    '[pooler] CYCLONE_TEST_POOLER_URL is not set: the pooler suite is skipped. Start PgBouncer ' +
      'with `scripts/pgbouncer.sh start` and export the URL it prints (CI does).',
  );
}

/**
 * `url`, a database of the test server, reached through the pooler: the pooler's host, port and
 * credentials, with the database's name and parameters (`application_name`, ...).
 */
export function throughPooler(url: string): string {
  if (!poolerUrl) throw new Error('CYCLONE_TEST_POOLER_URL is not set');
  const pooler = new URL(poolerUrl);
  const pooled = new URL(url);
  pooled.host = pooler.host;
  pooled.username = pooler.username;
  pooled.password = pooler.password;
  return pooled.toString();
}

/**
 * PgBouncer's own setting `pool_mode`, read from its admin console (the database `pgbouncer`), or
 * undefined when the pooler has no such console (Supavisor, RDS Proxy) or refuses the user.
 */
export async function pgbouncerPoolMode(): Promise<string | undefined> {
  if (!poolerUrl) return undefined;
  const admin = new URL(poolerUrl);
  admin.pathname = '/pgbouncer';
  const client = new pg.Client({ connectionString: admin.toString() });
  try {
    await client.connect();
    // The console speaks the simple protocol only: no parameters.
    const { rows } = await client.query<{ key: string; value: string }>('SHOW CONFIG');
    return rows.find((row) => row.key === 'pool_mode')?.value;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}
