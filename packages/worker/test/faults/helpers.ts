/**
 * Helpers of the fault tests: a logger that keeps what the worker logs, and a URL that names the
 * worker's sessions so a test can find and terminate them.
 */
import { pino, type Logger } from 'pino';

/** A pino logger (debug by default) that keeps every line it writes, parsed, for tests to inspect. */
export function capturingLogger(level: 'debug' | 'info' = 'debug'): {
  logger: Logger;
  lines: Record<string, unknown>[];
  text: () => string;
} {
  const raw: string[] = [];
  const logger = pino(
    { level },
    {
      write(line: string) {
        raw.push(line);
      },
    },
  );
  return {
    logger,
    get lines() {
      return raw.map((line) => JSON.parse(line) as Record<string, unknown>);
    },
    text: () => raw.join(''),
  };
}

/** `url` with an application name, so the sessions opened with it can be found in pg_stat_activity. */
export function urlNamed(url: string, name: string): string {
  const named = new URL(url);
  named.searchParams.set('application_name', name);
  return named.toString();
}
