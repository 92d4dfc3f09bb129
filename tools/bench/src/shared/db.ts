/** Small Postgres helpers shared by the orchestrator, the runner and the adapters. */
import type pg from 'pg';
import { quoteIdent } from '@cyclone/test-db/names';

// Connection and naming helpers are the test harness's; the bench adds its own below.
export { withClient } from '@cyclone/test-db/admin';
export { databaseUrl, quoteIdent } from '@cyclone/test-db/names';

/** A number from a `count(*)` / bigint column. */
export async function scalar(
  db: pg.ClientBase | pg.Pool,
  sql: string,
  params: unknown[] = [],
): Promise<number> {
  const result = await db.query<{ n: string | number | null }>(sql, params);
  return Number(result.rows[0]?.n ?? 0);
}

interface ColumnInfo {
  readonly column_name: string;
  readonly is_generated: string;
  readonly is_identity: string;
  readonly identity_generation: string | null;
}

/**
 * Clones the rows of `schema.table` matched by `where` `n` times with
 * `INSERT ... SELECT ... FROM generate_series`, in batches. `overrides` maps a column to the SQL
 * expression of its copies (`g` is the copy number, `src` the template row), or to `null` to leave
 * it to its default. Generated and identity-always columns are left out. Columns come from the
 * catalogue, so a column added by a later migration is copied as it is in the template.
 */
export async function cloneRows(
  db: pg.ClientBase | pg.Pool,
  options: {
    readonly schema: string;
    readonly table: string;
    readonly where: string;
    readonly whereParams?: unknown[];
    readonly n: number;
    readonly overrides: Readonly<Record<string, string | null>>;
    readonly batch?: number;
  },
): Promise<void> {
  const { rows } = await db.query<ColumnInfo>(
    `SELECT column_name, is_generated, is_identity, identity_generation
       FROM information_schema.columns
      WHERE table_schema = $1 AND table_name = $2
      ORDER BY ordinal_position`,
    [options.schema, options.table],
  );
  if (rows.length === 0) throw new Error(`no table ${options.schema}.${options.table}`);
  const columns = rows.filter(
    (c) =>
      c.is_generated !== 'ALWAYS' &&
      !(c.is_identity === 'YES' && c.identity_generation === 'ALWAYS') &&
      options.overrides[c.column_name] !== null,
  );
  const names = columns.map((c) => quoteIdent(c.column_name)).join(', ');
  const exprs = columns
    .map((c) => options.overrides[c.column_name] ?? `src.${quoteIdent(c.column_name)}`)
    .join(', ');
  const table = `${quoteIdent(options.schema)}.${quoteIdent(options.table)}`;
  const batch = options.batch ?? 100_000;
  const params = options.whereParams ?? [];
  const from = params.length + 1;
  const to = params.length + 2;
  for (let start = 1; start <= options.n; start += batch) {
    const end = Math.min(options.n, start + batch - 1);
    await db.query(
      `INSERT INTO ${table} (${names})
       SELECT ${exprs}
         FROM (SELECT * FROM ${table} WHERE ${options.where}) src,
              generate_series($${from}::int, $${to}::int) g`,
      [...params, start, end],
    );
  }
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
