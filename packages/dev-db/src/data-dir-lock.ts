/**
 * One process at a time per durable data folder. The lock is a file beside the folder (not in
 * it: initdb wants an empty folder), holding the owner's pid; a lock whose process is gone was left
 * by a killed run and is taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { pidIn, processAlive } from './process-alive.js';

/** Another live process holds the data folder. */
export class DataDirInUseError extends Error {
  readonly code = 'DATA_DIR_IN_USE';
  constructor(
    readonly dataDir: string,
    /** The process that holds it. */
    readonly pid: number,
  ) {
    super(`${dataDir} is in use by another process (pid ${pid})`);
    this.name = 'DataDirInUseError';
  }
}

/** A held lock. */
export interface DataDirLock {
  readonly file: string;
  /** Removes the lock file if it is still ours. Safe to call twice. */
  release(): void;
}

/** The lock file of a data folder: `<folder>.lock` beside it. */
export function lockFileOf(dataDir: string): string {
  return path.join(path.dirname(dataDir), `${path.basename(dataDir)}.lock`);
}

/** Takes the data folder's lock, or throws {@link DataDirInUseError}. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = lockFileOf(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      // 'wx' creates the file only if it does not exist: two processes cannot both succeed.
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return heldLock(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = pidInFile(file);
    if (owner !== undefined && owner !== process.pid && processAlive(owner)) {
      throw new DataDirInUseError(dataDir, owner);
    }
    rmSync(file, { force: true }); // stale: its process is gone
  }
  throw new Error(`could not take the lock ${file}: it keeps reappearing`);
}

function heldLock(file: string): DataDirLock {
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    process.off('exit', release);
    if (pidInFile(file) === process.pid) rmSync(file, { force: true });
  };
  // A process that exits without stop() (process.exit on a forced shutdown) still cleans up.
  process.on('exit', release);
  return { file, release };
}

function pidInFile(file: string): number | undefined {
  try {
    return pidIn(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}
