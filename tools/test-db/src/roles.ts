/**
 * Login roles for tests that connect as a role of their own (a least-privilege role, a role whose
 * password a test knows), and their clean-up. Roles belong to the server, not to a database, so
 * they are named after the run like the databases (`cyclone_role_<run tag>_<random>`): teardown
 * drops the run's roles after its databases, and a later run drops those a killed run left.
 *
 * Each role gets a password and its URL carries it, so the tests work on a server that asks for
 * passwords (the embedded one does, with SCRAM) as well as on a trust-auth one.
 */
import { randomBytes } from 'node:crypto';
import { dropEach, withClient } from './admin.js';
import { belongsToRun, isStale, likePrefix, quoteIdent, rolePrefix } from './names.js';

/** Postgres' `invalid_catalog_name`: the database does not exist (any more). */
const invalidCatalogName = '3D000';

/** A random password: hex, so it needs no escaping in a URL. */
export function newRolePassword(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Creates the login role `name` with `password` and returns the URL of `databaseUrl`'s database
 * as that role. The role has no rights beyond PUBLIC's: the caller grants what its test needs.
 */
export async function createLoginRole(
  databaseUrl: string,
  name: string,
  password: string,
): Promise<string> {
  await withClient(databaseUrl, (client) =>
    // CREATE ROLE takes no bound parameters: the password goes in as an escaped literal.
    client.query(
      `CREATE ROLE ${quoteIdent(name)} LOGIN PASSWORD ${client.escapeLiteral(password)}`,
    ),
  );
  const url = new URL(databaseUrl);
  url.username = name;
  url.password = password;
  return url.toString();
}

/**
 * Drops the role `name`: first what it owns and its grants in `databaseUrl`'s database (skipped
 * when that database is gone already), then the role. Sessions still open as the role are left
 * to the database's drop, which ends them.
 */
export async function dropLoginRole(
  serverUrl: string,
  databaseUrl: string,
  name: string,
): Promise<void> {
  try {
    await withClient(databaseUrl, async (client) => {
      const exists = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [name]);
      if (exists.rowCount) await client.query(`DROP OWNED BY ${quoteIdent(name)}`);
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== invalidCatalogName) throw error;
  }
  await withClient(serverUrl, (client) => client.query(`DROP ROLE IF EXISTS ${quoteIdent(name)}`));
}

/** Drops those of our roles that `drop` selects; returns how many. */
async function dropRolesMatching(
  serverUrl: string,
  drop: (name: string) => boolean,
): Promise<number> {
  return withClient(serverUrl, async (client) => {
    const result = await client.query<{ rolname: string }>(
      'SELECT rolname FROM pg_roles WHERE rolname LIKE $1',
      [likePrefix(rolePrefix)],
    );
    return dropEach(result.rows.map((row) => row.rolname).filter(drop), (name) =>
      client.query(`DROP ROLE IF EXISTS ${quoteIdent(name)}`),
    );
  });
}

/** Drops every role of the run tagged `runTag` (after its databases, where their grants were). */
export function dropRunRoles(serverUrl: string, runTag: string): Promise<number> {
  return dropRolesMatching(serverUrl, (name) => belongsToRun(name, runTag));
}

/** Drops roles that killed runs left behind: ours by name, and created over an hour ago. */
export function dropStaleRoles(serverUrl: string, now: Date = new Date()): Promise<number> {
  return dropRolesMatching(serverUrl, (name) => isStale(name, now));
}
