/**
 * Why a `DROP DATABASE` is still waiting, for its error message. Two kinds of session hold it up:
 *
 * - one that holds a lock on the database, e.g. an open transaction that commented on it;
 * - anywhere on the server, a login that never finished. Since PostgreSQL 15, `DROP DATABASE`
 *   waits until every backend has taken a signal (a ProcSignalBarrier), and a backend blocked
 *   reading its client's answer to the password request takes it only when
 *   `authentication_timeout` ends the login. node-postgres leaves such a login open when it fails
 *   before answering (`SASL: ... client password must be a string`: a URL without a password
 *   against a server that asks for one).
 */
import type pg from 'pg';

interface SessionRow {
  pid: number;
  starting: boolean;
  holds_lock: boolean;
  usename: string | null;
  application_name: string | null;
  state: string | null;
  client: string | null;
  age_s: number;
  authentication_timeout: string;
}

/** One line per session that keeps `DROP DATABASE database` waiting, as far as the server tells. */
export async function sessionsInTheWay(client: pg.Client, database: string): Promise<string[]> {
  const { rows } = await client.query<SessionRow>(
    `WITH locks AS (
       SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.objid
       WHERE l.locktype = 'object' AND l.classid = 'pg_database'::regclass AND l.granted
         AND d.datname = $1)
     SELECT a.pid, a.state = 'starting' AS starting, a.pid IN (SELECT pid FROM locks) AS holds_lock,
            a.usename, a.application_name, a.state,
            host(a.client_addr) || ':' || a.client_port AS client,
            floor(extract(epoch FROM clock_timestamp() - a.backend_start))::int AS age_s,
            current_setting('authentication_timeout') AS authentication_timeout
     FROM pg_stat_activity a
     WHERE a.pid <> pg_backend_pid() AND a.backend_type = 'client backend'
       AND (a.pid IN (SELECT pid FROM locks)
            -- a login under way for a second is not one that is merely quick
            OR (a.state = 'starting' AND a.backend_start < clock_timestamp() - interval '1 second'))
     ORDER BY a.backend_start`,
    [database],
  );
  return rows.map((row) =>
    row.starting
      ? `pid ${row.pid}: a login from ${row.client ?? 'a local socket'} that has not finished ` +
        `after ${row.age_s} s (a client that stopped answering the password request leaves one; ` +
        `the server ends it after authentication_timeout, ${row.authentication_timeout})`
      : `pid ${row.pid} (user ${row.usename ?? '?'}, application "${row.application_name ?? ''}", ` +
        `${row.state ?? 'no state'}) holds a lock on the database`,
  );
}
