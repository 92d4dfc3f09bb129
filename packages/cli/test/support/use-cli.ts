import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { Client } from '@cyclone/client';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { main, type Output } from '../../src/index.js';

/** What one call of the command printed, and its exit code. */
export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs `cyclone ...argv` in-process and captures what it prints (not a terminal). */
export async function runMain(argv: readonly string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false };
  const code = await main(argv, output);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/**
 * The set-up every CLI test file shares: a database of its own, a pool and a client on it, the
 * check that every event recorded follows core's table, and `cyclone(...)`, which runs the
 * command in-process against that database. Call it at the top of the file.
 */
export function useCli(options: { readonly poolSize?: number } = {}) {
  // The commands read CYCLONE_DATABASE_URL; these tests name their database explicitly.
  delete process.env.CYCLONE_DATABASE_URL;
  const db = useTestDatabase();
  let pool: pg.Pool | undefined;
  let client: Client | undefined;
  let checked = 0;
  beforeAll(() => {
    pool = new pg.Pool({ connectionString: db.url, max: options.poolSize ?? 4 });
    pool.on('error', () => undefined);
    client = new Client({ pool });
  });
  afterEach(async () => {
    checked = await expectEventsFollowTable(pool!, checked);
  });
  afterAll(async () => {
    await client?.close();
    await pool?.end();
  });
  return {
    db,
    get pool() {
      return pool!;
    },
    get client() {
      return client!;
    },
    /** `cyclone ...argv --database-url <the test database>`. */
    cyclone: (...argv: string[]) => runMain([...argv, '--database-url', db.url]),
    /** `cyclone ...argv`, naming no database. */
    bare: (...argv: string[]) => runMain(argv),
  };
}
