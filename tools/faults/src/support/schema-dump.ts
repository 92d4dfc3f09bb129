/**
 * A dump of the database's schema as rows (tables, columns, indexes, constraints, functions,
 * triggers), to compare before and after a scenario that tries to change it.
 */
import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

const catalogue = [
  `SELECT 'table ' || table_schema || '.' || table_name AS item FROM information_schema.tables
   WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
  `SELECT 'column ' || table_schema || '.' || table_name || '.' || column_name || ' ' || data_type
          || ' ' || is_nullable || ' ' || coalesce(column_default, '') AS item
   FROM information_schema.columns WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`,
  `SELECT 'index ' || schemaname || '.' || indexname || ' ' || indexdef AS item FROM pg_indexes
   WHERE schemaname NOT IN ('pg_catalog', 'information_schema')`,
  `SELECT 'constraint ' || n.nspname || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid) AS item
   FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')`,
  `SELECT 'function ' || n.nspname || '.' || p.proname AS item FROM pg_proc p
   JOIN pg_namespace n ON n.oid = p.pronamespace
   WHERE n.nspname NOT IN ('pg_catalog', 'information_schema')`,
  `SELECT 'trigger ' || tgname AS item FROM pg_trigger WHERE NOT tgisinternal`,
  `SELECT 'schema ' || nspname AS item FROM pg_namespace`,
];

/** Every schema object as one sorted line each. */
export async function schemaDump(db: Queryable): Promise<string[]> {
  const items: string[] = [];
  for (const query of catalogue) {
    const { rows } = await db.query<{ item: string }>(query);
    items.push(...rows.map((r) => r.item));
  }
  return items.sort();
}
