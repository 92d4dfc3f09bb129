/**
 * The fixture of the store's own tests: a fresh migrated database for the test file, a pool, a
 * `PostgresStore` on it, and raw readers of the rows a test asserts on. After each test, every
 * event it recorded is checked against core's transition table.
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import type { RunRecord, StepRecord } from '../src/schema/rows.js';
import { PostgresStore } from '../src/store.js';
import type { NewJobOptions, NewRun } from '../src/contract/new-run.js';
import { runOfJob } from '../src/tables/runs/new-runs.js';
import { makeHotAndHistory, tableLayoutOfTests } from './hot-and-history.js';

/** Sets up the fixture; call at the top of a test file. */
export function useStore() {
  const db = useTestDatabase();
  let pool: pg.Pool | undefined;
  let store: PostgresStore | undefined;
  let checkedEventId = 0;

  const tableLayout = tableLayoutOfTests();
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: db.url, max: 6 });
    // A backend a test terminates on purpose is reported here once it is idle.
    pool.on('error', () => undefined);
    if (tableLayout === 'hot-and-history') await makeHotAndHistory(pool);
    store = new PostgresStore({ pool, tableLayout });
  });
  afterEach(async () => {
    checkedEventId = await expectEventsFollowTable(pool!, checkedEventId);
  });
  afterAll(async () => {
    await pool?.end();
  });

  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    (await pool!.query<R>(text, values)).rows;

  return {
    db,
    /** The layout of runs and steps this file's database has (`CYCLONE_TEST_TABLE_LAYOUT`). */
    tableLayout,
    get pool() {
      return pool!;
    },
    get store() {
      return store!;
    },
    query,
    /** Submits runs and returns their ids. */
    async submit(...runs: NewRun[]): Promise<string[]> {
      return (await store!.submit(runs)).map((r) => r.runId);
    },
    /** Submits a standalone job and returns its run id and step id. */
    async job(
      kind: string,
      options: NewJobOptions = {},
    ): Promise<{ runId: string; stepId: string }> {
      const run = runOfJob(kind, 'null', options);
      await store!.submit([run]);
      return { runId: run.id, stepId: run.steps[0]!.id };
    },
    async run(runId: string): Promise<RunRecord> {
      const [row] = await query<RunRecord>('SELECT * FROM cyclone_runs WHERE id = $1', [runId]);
      if (!row) throw new Error(`no run ${runId}`);
      return row;
    },
    async step(stepId: string): Promise<StepRecord> {
      const [row] = await query<StepRecord>('SELECT * FROM cyclone_steps WHERE id = $1', [stepId]);
      if (!row) throw new Error(`no step ${stepId}`);
      return row;
    },
    /**
     * A run's history as `[type, from, to, trigger]`, in order, as the events API lists it: the
     * stored events with the two the run row tells (`run_submitted`, `run_completed`).
     */
    async events(runId: string): Promise<[string, string | null, string | null, string | null][]> {
      const events = await store!.listEvents(runId);
      return events.map((e) => [e.type, e.from, e.to, e.trigger]);
    },
  };
}

/** The fixture's type. */
export type StoreFixture = ReturnType<typeof useStore>;

/** Polls `probe` until it is true, failing after `timeoutMs` with `what`. */
export async function until(
  probe: () => Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Claims the one available step of `kind` for `workerId`. */
export async function claimOne(
  fx: StoreFixture,
  kind: string,
  leaseMs = 60_000,
  workerId = 'test-worker',
) {
  const [claimed] = await fx.store.claim({ kinds: [kind], limit: 1, workerId, leaseMs });
  if (!claimed) throw new Error(`nothing of kind ${kind} to claim`);
  return claimed;
}

/** Waits until the lease of `stepId` has expired by the database's clock. */
export async function leaseExpired(fx: StoreFixture, stepId: string): Promise<void> {
  await until(async () => {
    const [row] = await fx.query<{ expired: boolean }>(
      'SELECT lease_expires_at < now() AS expired FROM cyclone_steps WHERE id = $1',
      [stepId],
    );
    return row?.expired === true;
  }, `the lease of ${stepId} to expire`);
}
