import path from 'node:path';
import { RefusedError } from '../framework/cli-error.js';
import type { Output } from '../terminal/output.js';
import { loadDevDb } from './load-dev-db.js';

/** A running development database. */
export interface DevDatabase {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
}

/**
 * Starts the durable development database in `dataDir` (same port every time, one `cyclone dev`
 * at a time), turning what can go wrong into one line that says what to do.
 */
export async function startDevDatabase(dataDir: string, output: Output): Promise<DevDatabase> {
  const devDb = await loadDevDb();
  const shown = path.relative(process.cwd(), dataDir) || dataDir;
  try {
    return await devDb.startPostgres({
      dataDir,
      database: 'cyclone',
      log: (line) => output.err(line),
    });
  } catch (error) {
    if (error instanceof devDb.DataDirInUseError) {
      throw new RefusedError(
        `another cyclone dev (pid ${error.pid}) is running on ${shown}: use that one, stop it, or pass --data-dir`,
        error.code,
      );
    }
    if (error instanceof devDb.PostgresUserCannotReachError) {
      throw new RefusedError(
        `${error.message}, or pass --data-dir under a folder others can traverse`,
        error.code,
      );
    }
    throw new RefusedError(
      `the embedded PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}`,
      'DEV_DB_START_FAILED',
    );
  }
}
