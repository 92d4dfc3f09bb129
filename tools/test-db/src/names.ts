/**
 * Names of the databases, roles and folders the harness creates, and how to recognise stale ones.
 *
 * Every name carries the run's tag, `<base36 seconds since epoch>_<pid>_<random>`, so that a run can
 * drop exactly its own databases and roles at teardown and a later run can tell, from the name
 * alone, that one left behind by a killed run is old enough to remove.
 */
import { randomBytes } from 'node:crypto';

/** Prefix of the template database of a run. */
export const templatePrefix = 'cyclone_tpl_';
/** Prefix of the per-file test databases. */
export const testDatabasePrefix = 'cyclone_test_';
/** Prefix of the login roles tests create (`createTestRole`). */
export const rolePrefix = 'cyclone_role_';
/** Prefix of embedded Postgres data folders in the temp dir. */
export const dataDirPrefix = 'cyclone-test-pg-';
/** Anything of ours older than this is taken to be left over by a killed run. */
export const staleAfterMs = 60 * 60 * 1000;

const namePattern = /^cyclone_(?:tpl|test|role)_([0-9a-z]+)_\d+_/;

/** A fresh tag for one test run. */
export function newRunTag(now: Date = new Date()): string {
  const seconds = Math.floor(now.getTime() / 1000).toString(36);
  return `${seconds}_${process.pid}_${randomBytes(3).toString('hex')}`;
}

/** A fresh, unique name for one test database of the run tagged `runTag`. */
export function newTestDatabaseName(runTag: string): string {
  return `${testDatabasePrefix}${runTag}_${randomBytes(4).toString('hex')}`;
}

/** A fresh, unique name for one login role of the run tagged `runTag`. */
export function newRoleName(runTag: string): string {
  return `${rolePrefix}${runTag}_${randomBytes(4).toString('hex')}`;
}

/** When the database or role named `name` was created, if it is one of ours; `undefined` otherwise. */
export function createdAt(name: string): Date | undefined {
  const match = namePattern.exec(name);
  if (!match?.[1]) return undefined;
  const seconds = Number.parseInt(match[1], 36);
  return Number.isFinite(seconds) ? new Date(seconds * 1000) : undefined;
}

/** Whether the database or role `name` is one of the run tagged `runTag`. */
export function belongsToRun(name: string, runTag: string): boolean {
  return (
    name === `${templatePrefix}${runTag}` ||
    [testDatabasePrefix, rolePrefix].some((prefix) => name.startsWith(`${prefix}${runTag}_`))
  );
}

/** Whether `name` is ours and was created over {@link staleAfterMs} before `now` (a killed run's). */
export function isStale(name: string, now: Date): boolean {
  const created = createdAt(name);
  return created !== undefined && created.getTime() <= now.getTime() - staleAfterMs;
}

/** A `LIKE` pattern matching every name that starts with `prefix`. */
export function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Quotes a Postgres identifier: `a"b` becomes `"a""b"`. Identifiers cannot be bound parameters. */
export function quoteIdent(name: string): string {
  if (name.includes('\0'))
    throw new Error(`identifier contains a NUL byte: ${JSON.stringify(name)}`);
  return `"${name.replaceAll('"', '""')}"`;
}

/** The URL of database `name` on the server that `serverUrl` points at (same host, user, options). */
export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}
