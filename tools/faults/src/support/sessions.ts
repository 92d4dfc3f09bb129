/** The database sessions of a scenario's processes, found by `application_name`. */
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

/** A session in `pg_stat_activity`. */
export interface Session {
  readonly pid: number;
  readonly applicationName: string;
  readonly waitEventType: string | null;
  readonly query: string;
}

/** Sessions on this database whose `application_name` is one of `names` (or matches a `LIKE` pattern). */
export async function sessionsOf(db: Queryable, pattern: string): Promise<Session[]> {
  const { rows } = await db.query<{
    pid: number;
    application_name: string;
    wait_event_type: string | null;
    query: string;
  }>(
    `SELECT pid, application_name, wait_event_type, query FROM pg_stat_activity
     WHERE datname = current_database() AND application_name LIKE $1 AND pid <> pg_backend_pid()`,
    [pattern],
  );
  return rows.map((r) => ({
    pid: r.pid,
    applicationName: r.application_name,
    waitEventType: r.wait_event_type,
    query: r.query,
  }));
}

/** Terminates the sessions whose `application_name` matches `pattern`; returns how many. */
export async function terminateSessions(db: Queryable, pattern: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND application_name LIKE $1 AND pid <> pg_backend_pid()`,
    [pattern],
  );
  return rows[0]!.n;
}
