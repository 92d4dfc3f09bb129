import type * as DevDb from '@cyclone/dev-db';
import { RefusedError } from '../framework/cli-error.js';

/** The `@cyclone/dev-db` module. */
export type DevDbModule = typeof DevDb;

/**
 * Loads `@cyclone/dev-db`, an optional peer dependency: only `cyclone dev` needs it (it carries the
 * PostgreSQL binaries, some 30 MB), so installing the CLI for production does not.
 */
export async function loadDevDb(
  load: () => Promise<DevDbModule> = () => import('@cyclone/dev-db'),
): Promise<DevDbModule> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : '';
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes('@cyclone/dev-db')) {
      throw new RefusedError(
        'the embedded PostgreSQL of `cyclone dev` comes with @cyclone/dev-db, which is not installed: ' +
          'run `npm install --save-dev @cyclone/dev-db`, or pass --database-url',
        'DEV_DB_MISSING',
      );
    }
    throw error;
  }
}
