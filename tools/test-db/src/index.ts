/**
 * `@cyclone/test-db`: a fresh, migrated PostgreSQL database for each integration test file.
 *
 * The vitest global setup (enabled by `cycloneVitestConfig`) finds one server per test run and
 * migrates a template database on it; each test file clones the template, which takes tens of
 * milliseconds, so files never see each other's rows and run in parallel safely.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { afterAll, beforeAll, expect, it } from 'vitest';
 * import { useTestDatabase } from '@cyclone/test-db';
 *
 * const db = useTestDatabase();   // register first: its afterAll then runs last
 * let pool: pg.Pool;
 * beforeAll(() => { pool = new pg.Pool({ connectionString: db.url }); });
 * afterAll(() => pool.end());
 *
 * it('starts empty', async () => {
 *   const { rows } = await pool.query('SELECT count(*)::int AS n FROM cyclone_runs');
 *   expect(rows[0].n).toBe(0);
 * });
 * ```
 *
 * @packageDocumentation
 */
import { afterAll, beforeAll, inject } from 'vitest';
import { cloneTemplate, dropDatabase, DropStillWaitingError } from './admin.js';
import { databaseUrl, newRoleName, newTestDatabaseName } from './names.js';
import { type CycloneTestDbContext, providedKey } from './provided.js';
import { createLoginRole, dropLoginRole, newRolePassword } from './roles.js';

export type { CycloneTestDbContext, ServerRoute } from './provided.js';
export { expectEventsFollowTable } from './events-follow-table.js';
export { eventually } from './eventually.js';

/** A database of its own for one test file (or one test). */
export interface TestDatabase {
  /** Connection URL of the database. */
  readonly url: string;
  /** The database's name. */
  readonly name: string;
  /** Drops the database, ending any connection still open to it. Safe to call twice. */
  drop(): Promise<void>;
}

/** What the global setup provided: the server, the template, whether migrations were applied. */
export function testDbContext(): CycloneTestDbContext {
  const context = inject(providedKey) as CycloneTestDbContext | undefined;
  if (!context) {
    throw new Error(
      '@cyclone/test-db: no test database server was provided. Is the global setup enabled? ' +
        'Use cycloneVitestConfig(import.meta.url) without { database: false } in vitest.config.ts.',
    );
  }
  return context;
}

/**
 * Creates a new database cloned from the run's migrated template (`CREATE DATABASE ... TEMPLATE`).
 * The caller drops it; a database left behind is dropped when the test run ends.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const { serverUrl, templateDatabase, runTag } = testDbContext();
  const name = newTestDatabaseName(runTag);
  await cloneTemplate(serverUrl, templateDatabase, name);
  let dropped: Promise<void> | undefined;
  return {
    url: databaseUrl(serverUrl, name),
    name,
    drop: () => (dropped ??= dropDatabase(serverUrl, name)),
  };
}

/** A login role of a test's own, with a password (see {@link createTestRole}). */
export interface TestRole {
  /** The role's name, `cyclone_role_<run tag>_<random>`. */
  readonly name: string;
  /** The URL of the database the role was created for, logged in as the role, password included. */
  readonly url: string;
  /** Drops what the role owns and its grants in that database, then the role. Safe to call twice. */
  drop(): Promise<void>;
}

/** Options of {@link createTestRole}. */
export interface TestRoleOptions {
  /** The role's password. @defaultValue a random one */
  readonly password?: string;
}

/**
 * Creates a login role with a password and gives the URL of `databaseUrl`'s database as that role,
 * so a test that connects as a role of its own works on a server that asks for passwords (the
 * embedded one) as on a trust-auth one. The role has PUBLIC's rights only: grant what the test
 * needs. Drop it in an `afterAll` registered after `useTestDatabase()` (so it runs before the
 * database's drop); teardown drops any role of the run left behind.
 */
export async function createTestRole(
  databaseUrl: string,
  options: TestRoleOptions = {},
): Promise<TestRole> {
  const { serverUrl, runTag } = testDbContext();
  const name = newRoleName(runTag);
  const url = await createLoginRole(databaseUrl, name, options.password ?? newRolePassword());
  let dropped: Promise<void> | undefined;
  return { name, url, drop: () => (dropped ??= dropLoginRole(serverUrl, databaseUrl, name)) };
}

/**
 * Gives the calling test file a fresh database: created in `beforeAll`, dropped in `afterAll`.
 * Read `url` / `name` inside hooks and tests (they throw before `beforeAll` has run).
 *
 * Call it before registering hooks that open connections, so that their `afterAll` (which should
 * close them) runs before the drop; the drop ends any connection still open in any case.
 */
export function useTestDatabase(): Pick<TestDatabase, 'url' | 'name'> {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    try {
      await database?.drop();
    } catch (error) {
      // A slow server is not the test file's failure: its tests have passed, and the database,
      // which nothing uses any more, is dropped with the run's others at teardown.
      if (!(error instanceof DropStillWaitingError)) throw error;
      console.warn(`${error.message}; the run's teardown drops it`);
    }
    database = undefined;
  });
  const current = (): TestDatabase => {
    if (!database) {
      throw new Error(
        'useTestDatabase(): the database exists only inside tests and hooks, after beforeAll has run',
      );
    }
    return database;
  };
  return {
    get url() {
      return current().url;
    },
    get name() {
      return current().name;
    },
  };
}
