/** Housekeeping of data folders: stale server pid files, stored ports, throw-away folders left behind. */
import { existsSync, promises as fs, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidIn, processAlive } from './process-alive.js';

/** Throw-away folders older than this, whose server is gone, were left by a killed run. */
export const staleAfterMs = 60 * 60 * 1000;

/** The file in a durable data folder that remembers its port. */
const portFileName = 'cyclone-port';

/** Whether `dataDir` holds an initialised cluster. */
export function isInitialised(dataDir: string): boolean {
  return existsSync(path.join(dataDir, 'PG_VERSION'));
}

/** The port stored in the data folder by an earlier start, if any. */
export function storedPort(dataDir: string): number | undefined {
  try {
    const port = Number.parseInt(readFileSync(path.join(dataDir, portFileName), 'utf8'), 10);
    return Number.isInteger(port) && port > 0 && port < 65_536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** Remembers the port for the next start. */
export function storePort(dataDir: string, port: number): void {
  writeFileSync(path.join(dataDir, portFileName), `${port}\n`);
}

/**
 * A `postmaster.pid` left by a killed server blocks the next start: remove it when its process is
 * gone; when it is alive, say which process holds the folder.
 */
export function removeStalePostmasterPid(dataDir: string): void {
  const file = path.join(dataDir, 'postmaster.pid');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const pid = pidIn(text);
  if (pid !== undefined && processAlive(pid)) {
    throw new Error(
      `a PostgreSQL server (pid ${pid}) is still running on ${dataDir}, left by an earlier ` +
        `process: stop it (\`kill ${pid}\`) and start again`,
    );
  }
  rmSync(file, { force: true });
}

/**
 * Removes throw-away data folders named `<prefix>*` in the temp dir that killed runs left: older
 * than {@link staleAfterMs} and not in use by a live postmaster (one whose folder vanishes shuts
 * itself down anyway).
 */
export async function removeStaleTempDirs(prefix: string, now = Date.now()): Promise<number> {
  const tmp = os.tmpdir();
  let entries: string[];
  try {
    entries = await fs.readdir(tmp);
  } catch {
    return 0;
  }
  const removed = await Promise.all(
    entries
      .filter((entry) => entry.startsWith(prefix))
      .map(async (entry) => {
        const dir = path.join(tmp, entry);
        try {
          const stat = await fs.stat(dir);
          if (!stat.isDirectory() || stat.mtimeMs > now - staleAfterMs) return false;
          const pidText = await fs
            .readFile(path.join(dir, 'postmaster.pid'), 'utf8')
            .catch(() => '');
          const pid = pidIn(pidText);
          if (pid !== undefined && processAlive(pid)) return false;
          await fs.rm(dir, { recursive: true, force: true });
          return true;
        } catch {
          return false; // another run removed it first, or it is not ours to remove
        }
      }),
  );
  return removed.filter(Boolean).length;
}
