import { UsageError } from '../framework/cli-error.js';

/**
 * The database URL from `--database-url`, else `CYCLONE_DATABASE_URL`, else `DATABASE_URL` (the
 * name most platforms set), else none.
 */
export function databaseUrlFrom(flag: string | undefined, env = process.env): string | undefined {
  for (const url of [flag, env.CYCLONE_DATABASE_URL, env.DATABASE_URL]) {
    if (url !== undefined && url !== '') return url;
  }
  return undefined;
}

/** Like {@link databaseUrlFrom}, but a command that needs a database fails clearly without one. */
export function requireDatabaseUrl(flag: string | undefined, env = process.env): string {
  const url = databaseUrlFrom(flag, env);
  if (!url) {
    throw new UsageError(
      'no database: pass --database-url postgres://user@host:5432/db or set CYCLONE_DATABASE_URL',
    );
  }
  return url;
}
