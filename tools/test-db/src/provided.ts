/** What the global setup hands to every test file through vitest's `provide` / `inject`. */

/** How the harness found its Postgres server. */
export type ServerRoute = 'url' | 'docker' | 'embedded';

/** The Postgres server of this test run and the migrated template that test databases are cloned from. */
export interface CycloneTestDbContext {
  /** A URL of a database on the server, usable for `CREATE DATABASE` / `DROP DATABASE`. */
  readonly serverUrl: string;
  /** The migrated template database; each test database is `CREATE DATABASE ... TEMPLATE` it. */
  readonly templateDatabase: string;
  /** The tag shared by every database of this run; names are `cyclone_test_<runTag>_<random>`. */
  readonly runTag: string;
  /** How the server was found. */
  readonly route: ServerRoute;
  /** Whether the template holds the repo's migrations (false until `migrations/` has a journal). */
  readonly migrated: boolean;
}

/** The key under which the context is provided. */
export const providedKey = 'cycloneTestDb';

declare module 'vitest' {
  export interface ProvidedContext {
    cycloneTestDb: CycloneTestDbContext;
  }
}
