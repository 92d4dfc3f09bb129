import { InvalidDatabaseUrlError } from '@cyclone/core';

/** The URL schemes `pg` understands as a PostgreSQL server (a `socket:` URL names a Unix socket). */
const POSTGRES_PROTOCOLS = new Set(['postgres:', 'postgresql:', 'socket:']);

/**
 * Refuses a connection string that is not a PostgreSQL URL, before any connection is tried, so a
 * typo (`postgress://`, `http://...`, a bare host name) fails with a message saying what to give.
 *
 * @param where - where the URL was given, e.g. `worker options`
 * @param field - the option that holds it, e.g. `listenConnectionString`
 * @throws InvalidDatabaseUrlError naming where the URL came from and what is wrong
 */
export function assertPostgresUrl(
  url: unknown,
  where: string,
  field = 'connectionString',
): asserts url is string {
  const at = `${where}.${field}`;
  if (typeof url !== 'string' || url.trim() === '') {
    throw new InvalidDatabaseUrlError(at, 'no URL was given');
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new InvalidDatabaseUrlError(at, 'it is not a URL', { cause });
  }
  if (!POSTGRES_PROTOCOLS.has(parsed.protocol)) {
    throw new InvalidDatabaseUrlError(at, `its scheme is "${parsed.protocol.replace(/:$/, '')}"`);
  }
}
