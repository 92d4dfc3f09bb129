/**
 * The database of a scenario file: a fresh migrated database from `@cyclone/test-db`, a pool and a
 * client on it, the `fault_effects` table the fixtures' handlers write their side effect to (and
 * `fault_txn_effects`, written inside `ctx.transaction`: no unique key, so a second write shows), and
 * URLs that name each process's sessions (`application_name`) so a scenario can find them in
 * `pg_stat_activity`.
 */
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { useTestDatabase } from '@cyclone/test-db';
import { Client } from '@cyclone/client';

/** The side-effect table: one row per execution of a handler that records one. */
const effectsTable = `
CREATE TABLE IF NOT EXISTS fault_effects (
  id bigserial PRIMARY KEY,
  step_id uuid NOT NULL,
  attempt int NOT NULL,
  worker text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX IF NOT EXISTS fault_effects_step_idx ON fault_effects (step_id);
CREATE TABLE IF NOT EXISTS fault_txn_effects (
  id bigserial PRIMARY KEY,
  step_id uuid NOT NULL,
  attempt int NOT NULL,
  worker text NOT NULL
);
CREATE INDEX IF NOT EXISTS fault_txn_effects_step_idx ON fault_txn_effects (step_id);
`;

/** What {@link useFaultDatabase} gives a scenario file. */
export interface FaultDatabase {
  readonly url: string;
  readonly pool: pg.Pool;
  readonly client: Client;
  query<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<R[]>;
}

/** `url` with `application_name` set, so the sessions opened with it can be found. */
export function urlNamed(url: string, name: string): string {
  const named = new URL(url);
  named.searchParams.set('application_name', name);
  return named.toString();
}

/** Creates the side-effect table on the database at `pool`. */
export async function createEffectsTable(pool: pg.Pool): Promise<void> {
  await pool.query(effectsTable);
}

/** A fresh database for the scenario file (see the module comment). */
export function useFaultDatabase(): FaultDatabase {
  const db = useTestDatabase();
  let pool: pg.Pool | undefined;
  let client: Client | undefined;
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: urlNamed(db.url, 'fault-test'), max: 4 });
    // Scenarios terminate sessions and the database is dropped at the end: idle connections of
    // this pool may be cut, which pg reports here.
    pool.on('error', () => undefined);
    await createEffectsTable(pool);
    client = new Client({ pool });
  });
  afterAll(async () => {
    await client?.close();
    await pool?.end();
  });
  return {
    get url() {
      return db.url;
    },
    get pool() {
      return pool!;
    },
    get client() {
      return client!;
    },
    async query<R extends pg.QueryResultRow = Record<string, unknown>>(
      text: string,
      values: unknown[] = [],
    ): Promise<R[]> {
      return (await pool!.query<R>(text, values)).rows;
    },
  };
}
