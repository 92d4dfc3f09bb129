import { sql, type SQL } from 'drizzle-orm';

function quoteList(values: readonly string[]): string {
  return values.map((v) => `'${v.replaceAll("'", "''")}'`).join(', ');
}

/**
 * Builds the body of a CHECK constraint that admits exactly the given string values. The values
 * come from `@cyclone/core`, so the database and the core cannot disagree on a state's spelling.
 * They are inlined because constraints cannot take parameters; they are constants of the library,
 * never user input.
 */
export function oneOf(column: string, values: readonly string[]): SQL {
  return sql.raw(`"${column}" IN (${quoteList(values)})`);
}

/** Like {@link oneOf}, but NULL is also admitted. */
export function nullOrOneOf(column: string, values: readonly string[]): SQL {
  return sql.raw(`"${column}" IS NULL OR "${column}" IN (${quoteList(values)})`);
}
