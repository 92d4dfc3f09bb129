import { UsageError } from './cli-error.js';

/** The database URL from `--database-url`, else `CYCLONE_DATABASE_URL`, else none. */
export function databaseUrlFrom(flag: string | undefined, env = process.env): string | undefined {
  const url = flag ?? env.CYCLONE_DATABASE_URL;
  return url === undefined || url === '' ? undefined : url;
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
