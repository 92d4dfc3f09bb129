/**
 * Makes a database in one of the two layouts of runs and steps, for `runner.ts` to drain (decisions
 * 347-352 and 430-449): `flat`, the tables as they were before they were partitioned, or `period`,
 * partitioned, with a partition a day from `days` days ago to two days ahead, as a scheduler
 * keeping that much history leaves them (today's runs in today's partition). See
 * `shared/layouts.ts`.
 *
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/period-layout.ts \
 *     postgres://postgres@127.0.0.1:5432 cyclone_layout_flat flat
 *   node --conditions=@cyclone/source --import tsx tools/bench/src/period-layout.ts \
 *     postgres://postgres@127.0.0.1:5432 cyclone_layout_period period 7
 *
 * (server URL, database name, layout, past days). The database is dropped and made again.
 */
import pg from 'pg';
import { databaseUrl, quoteIdent } from './shared/db.js';
import { makeLayout } from './shared/layouts.js';

const [serverUrl, name, layout = 'period', daysArg = '7'] = process.argv.slice(2);
if (!serverUrl || !name || (layout !== 'flat' && layout !== 'period')) {
  throw new Error('usage: period-layout.ts <server url> <database> flat|period [past days]');
}

const admin = new pg.Pool({ connectionString: serverUrl, max: 1 });
await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)}`);
await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
await admin.end();
const pool = new pg.Pool({ connectionString: databaseUrl(serverUrl, name), max: 2 });
await makeLayout(pool, layout, Number(daysArg));
const { rows } = await pool.query<{ table: string; n: number }>(
  `SELECT c.relname AS table, count(i.inhrelid)::int AS n FROM pg_class c
   LEFT JOIN pg_inherits i ON i.inhparent = c.oid
   WHERE c.relname IN ('cyclone_runs', 'cyclone_steps', 'cyclone_events') GROUP BY c.relname`,
);
console.log(`${name}: ${layout}, partitions ${rows.map((r) => `${r.table} ${r.n}`).join(', ')}`);
await pool.end();
