/**
 * Makes a test database's runs and steps into decision 426's layout, which no migration makes yet:
 * `cyclone_runs` and `cyclone_steps` become parents list-partitioned on `in_history`, with the
 * tables as they were, renamed `_hot`, as their `false` partition (attached with their rows and
 * indexes), and a history range-partitioned on `id` as their `true` partition, with the readers'
 * indexes only. The history view is made again over the parents. A store built with
 * `tableLayout: 'hot-and-history'` then writes the hot tables and reads the parents.
 *
 * The store's whole suite runs on this layout when `CYCLONE_TEST_TABLE_LAYOUT` is
 * `hot-and-history` (see `fixture.ts`).
 */
import type pg from 'pg';
import type { TableLayout } from '../src/db/tables.js';

/** The layout the store's tests run on: `CYCLONE_TEST_TABLE_LAYOUT`, else `one-table`. */
export function tableLayoutOfTests(): TableLayout {
  const layout = process.env.CYCLONE_TEST_TABLE_LAYOUT ?? 'one-table';
  if (layout !== 'one-table' && layout !== 'hot-and-history') {
    throw new Error(
      `CYCLONE_TEST_TABLE_LAYOUT: expected one-table or hot-and-history, got "${layout}"`,
    );
  }
  return layout;
}

/** The history's indexes: what the readers find runs and steps by (lists, a run's steps, the DLQ). */
const historyIndexes = [
  'CREATE UNIQUE INDEX ON cyclone_runs_history (id)',
  'CREATE INDEX ON cyclone_runs_history (created_at)',
  'CREATE INDEX ON cyclone_runs_history (workflow, created_at)',
  'CREATE INDEX ON cyclone_runs_history (parent_run_id) WHERE parent_run_id IS NOT NULL',
  'CREATE UNIQUE INDEX ON cyclone_steps_history (id)',
  'CREATE INDEX ON cyclone_steps_history (run_id, item_index) WHERE id <> run_id',
  'CREATE INDEX ON cyclone_steps_history (parent_step_id, state, item_index) WHERE parent_step_id IS NOT NULL',
  `CREATE INDEX ON cyclone_steps_history (error_kind, ended_at) WHERE state = 'discarded'`,
];

/**
 * Lays runs and steps out hot and history, in one transaction under the lock order of a claim
 * (steps, then runs). Rows already there stay in the hot tables.
 */
export async function makeHotAndHistory(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('LOCK TABLE cyclone_steps, cyclone_runs IN ACCESS EXCLUSIVE MODE');
    const { rows } = await client.query<{ history: string }>(
      `SELECT pg_get_viewdef('cyclone_history'::regclass) AS history`,
    );
    await client.query('DROP VIEW cyclone_history');
    for (const table of ['cyclone_runs', 'cyclone_steps']) {
      await client.query(`ALTER TABLE ${table} RENAME TO ${table}_hot`);
      await client.query(
        `ALTER TABLE ${table}_hot ADD COLUMN in_history boolean NOT NULL DEFAULT false`,
      );
      await client.query(
        `CREATE TABLE ${table} (LIKE ${table}_hot INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
         PARTITION BY LIST (in_history)`,
      );
      await client.query(
        `ALTER TABLE ${table} ATTACH PARTITION ${table}_hot FOR VALUES IN (false)`,
      );
      await client.query(
        `CREATE TABLE ${table}_history PARTITION OF ${table} FOR VALUES IN (true)
         PARTITION BY RANGE (id)`,
      );
      await client.query(
        `CREATE TABLE ${table}_history_all PARTITION OF ${table}_history
         FOR VALUES FROM (MINVALUE) TO (MAXVALUE)`,
      );
    }
    for (const sql of historyIndexes) await client.query(sql);
    await client.query(`CREATE VIEW cyclone_history AS ${rows[0]!.history}`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Moves every finished run (completed, failed, cancelled) with its steps into history, as the
 * scheduler of decision 426 will: through the parents, which PostgreSQL carries out as a delete
 * from the hot tables and an insert into history. Returns how many runs moved.
 */
export async function moveFinishedToHistory(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>(
    `WITH moved AS (
       UPDATE cyclone_runs SET in_history = true
       WHERE NOT in_history AND state IN ('completed', 'failed', 'cancelled')
       RETURNING id
     ), steps AS (
       UPDATE cyclone_steps SET in_history = true
       WHERE NOT in_history AND run_id IN (SELECT id FROM moved)
     )
     SELECT count(*)::int AS n FROM moved`,
  );
  return rows[0]!.n;
}
