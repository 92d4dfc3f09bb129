/**
 * The fixture of the schedule tests: a fresh database, a client, a store, and schedulers whose
 * schedules scanner reads a clock the test sets (the `scheduleClock` option), so time-driven
 * behaviour is tested without waiting for it.
 *
 * The test clock lies in the past of the database's. Downtimes are written in its time by
 * `downtime()`; the scheduler lease starts out as one that a scheduler held until the file's tests
 * began, so a pass on the test clock decides every tick up to it, and the gaps real elections
 * record (in the database's time) fall after every tick a test plans.
 */
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { nextCronFire } from '@cyclone/core';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { Client } from '@cyclone/client';
import { PostgresStore } from '@cyclone/store-postgres';
import { Scheduler, type SchedulerOptions } from '../src/index.js';

/** Sets up the fixture; call at the top of a test file. */
export function useSchedules() {
  const db = useTestDatabase();
  const logger = pino({ level: 'silent' });
  let pool: pg.Pool;
  let client: Client;
  let store: PostgresStore;
  let checkedEventId = 0;
  const clock = { now: new Date('2026-01-01T00:00:00Z') };
  const schedulers: Scheduler[] = [];

  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: db.url, max: 8 });
    pool.on('error', () => undefined); // the database's drop ends idle connections
    client = new Client({ pool });
    store = new PostgresStore({ pool });
    await pool.query(
      `INSERT INTO cyclone_leaders (name, holder, expires_at, renewed_at, led_since)
       VALUES ('scheduler', 'before-the-tests', now(), now(), now())`,
    );
  });
  afterEach(async () => {
    for (const s of schedulers.splice(0)) await s.stop();
    // Each test's schedules stop here, so a later test's clock does not fire them, and its
    // downtimes go, so they do not fall on a later test's ticks.
    await pool.query('UPDATE cyclone_schedules SET enabled = false');
    await pool.query('DELETE FROM cyclone_leader_gaps');
    checkedEventId = await expectEventsFollowTable(pool, checkedEventId);
  });
  afterAll(async () => {
    await client.close();
    await pool.end();
  });

  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
    (await pool.query<R>(text, values)).rows;

  return {
    clock,
    get client() {
      return client;
    },
    get store() {
      return store;
    },
    get pool() {
      return pool;
    },
    query,
    /** A scheduler that never ticks by itself, on the test's clock. */
    scheduler(options: Partial<SchedulerOptions> = {}): Scheduler {
      const s = new Scheduler({
        pool,
        logger,
        interval: '1h',
        unservedKindGrace: false,
        scheduleClock: async () => clock.now,
        ...options,
      });
      schedulers.push(s);
      return s;
    },
    /** Runs only the schedules scanner of a scheduler once (no election). */
    async fire(s: Scheduler): Promise<void> {
      await s.scanners.find((x) => x.name === 'schedules')!.runOnce();
    },
    /**
     * Puts a schedule's first unhandled tick at its first tick after `at`, as if it had been
     * created at that time on the test's clock (creation reads the database's real clock).
     */
    async startAt(id: string, at: Date): Promise<void> {
      const [row] = await query<{ cron: string; timezone: string }>(
        'SELECT cron, timezone FROM cyclone_schedules WHERE id = $1',
        [id],
      );
      const next = nextCronFire(row!, at);
      await query('UPDATE cyclone_schedules SET next_run_at = $2 WHERE id = $1', [id, next]);
    },
    /**
     * Records a downtime of the scheduler lease on the test's clock, as taking the lease again
     * would: from the last renewal before it lapsed (null: none known) until it was taken again.
     */
    async downtime(from: Date | null, until: Date): Promise<void> {
      await query(
        `INSERT INTO cyclone_leader_gaps (name, started_at, ended_at) VALUES ('scheduler', $1, $2)
         ON CONFLICT DO NOTHING`,
        [from, until],
      );
    },
    /** The ids of the runs a schedule's fires started, oldest tick first. */
    async runsOf(id: string): Promise<string[]> {
      const fires = await client.listScheduleFires(id, { limit: 10_000 });
      return fires
        .filter((f) => f.runId !== null)
        .reverse()
        .map((f) => f.runId!);
    },
    /** How many runs exist of a workflow or job kind. */
    async countRuns(workflow: string): Promise<number> {
      const [row] = await query<{ n: string }>(
        'SELECT count(*) AS n FROM cyclone_runs WHERE workflow = $1',
        [workflow],
      );
      return Number(row!.n);
    },
  };
}

/** Polls `probe` until it holds, with a deadline generous enough for a loaded machine. */
export async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** `at` plus `ms` milliseconds. */
export function plus(at: Date, ms: number): Date {
  return new Date(at.getTime() + ms);
}
