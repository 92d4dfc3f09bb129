/** The soak's database: one of its own on the given server, or the given one (`--in-place`). */
import pg from 'pg';
import { migrate } from '@cyclone/store-postgres';
import { startOwnCluster } from '../support/own-cluster.js';
import type { SoakOptions } from './options.js';

/** The database the soak runs in, and how to let it go. */
export interface SoakDatabase {
  readonly url: string;
  /** Drops the soak's own database (unless kept); nothing for `--in-place`. */
  release(): Promise<void>;
}

/** `url` with `application_name` set, so the soak's sessions can be told apart. */
export function urlNamed(url: string, name: string): string {
  const named = new URL(url);
  named.searchParams.set('application_name', name);
  return named.toString();
}

/**
 * Creates (or takes) and migrates the soak's database. Without a URL, on a cluster of its own:
 * PostgreSQL's defaults but for `fsync` and `full_page_writes` (off, as in the fault suite: the
 * machine's disk is shared, and neither changes what vacuum can remove) and, in a run shorter
 * than 30 minutes, `autovacuum_naptime` scaled with the phases, so that autovacuum runs as it does
 * in production whatever the test server's settings.
 */
export async function prepareDatabase(options: SoakOptions): Promise<SoakDatabase> {
  if (options.databaseUrl === undefined) {
    // Autovacuum wakes every minute by default: the pace the 30-minute run is judged at. A
    // shorter run scales it with its phases, so that vacuum gets as many chances per phase.
    const naptime = Math.max(1, Math.round((60 * options.minutes) / 30));
    const cluster = await startOwnCluster({
      max_connections: '100',
      autovacuum_naptime: `${naptime}s`,
    });
    try {
      await migrate({ connectionString: cluster.url });
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
    return { url: cluster.url, release: () => cluster.destroy() };
  }
  if (options.inPlace) {
    await migrate({ connectionString: options.databaseUrl });
    return { url: options.databaseUrl, release: () => Promise.resolve() };
  }
  const server = options.databaseUrl;
  const name = `cyclone_soak_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(server);
  url.pathname = `/${name}`;
  await migrate({ connectionString: url.toString() });
  return {
    url: url.toString(),
    release: async () => {
      if (options.keep) {
        console.log(`[soak] kept database ${name}`);
        return;
      }
      const dropper = new pg.Client({ connectionString: server });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** The server's vacuum settings that decide how the soak goes, printed with its figures. */
export async function vacuumSettings(pool: pg.Pool): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings
     WHERE name IN ('autovacuum', 'autovacuum_naptime', 'autovacuum_vacuum_scale_factor',
                    'autovacuum_vacuum_threshold', 'autovacuum_vacuum_insert_scale_factor',
                    'autovacuum_vacuum_cost_limit', 'autovacuum_vacuum_cost_delay',
                    'autovacuum_max_workers', 'server_version', 'shared_buffers',
                    'synchronous_commit', 'fsync')
     ORDER BY name`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, `${r.setting}${r.unit ? r.unit : ''}`]));
}
