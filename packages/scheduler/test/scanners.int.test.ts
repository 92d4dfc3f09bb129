import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { Client } from '@cyclone/client';
import { PostgresStore } from '@cyclone/store-postgres';
import { Scheduler, type SchedulerOptions } from '../src/index.js';
import { EventPartitionsScanner } from '../src/scanners/event-partitions.js';

const db = useTestDatabase();
const logger = pino({ level: 'silent' });
let pool: pg.Pool;
let client: Client;
let store: PostgresStore;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  pool.on('error', () => undefined); // the database's drop ends idle connections
  client = new Client({ pool });
  store = new PostgresStore({ pool });
});
// Every scanner's moves must be rows of core's transition table.
let checkedEventId = 0;
afterEach(async () => {
  checkedEventId = await expectEventsFollowTable(pool, checkedEventId);
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

/** A scheduler that never ticks by itself: tests drive it with tick(). */
function scheduler(options: Partial<SchedulerOptions> = {}): Scheduler {
  return new Scheduler({ pool, logger, interval: '1h', ...options });
}

async function until(probe: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('leader election', () => {
  it('lets exactly one replica lead, and another take over when it resigns', async () => {
    const a = scheduler({ id: 'replica-a' });
    const b = scheduler({ id: 'replica-b' });
    await a.tick();
    await b.tick();
    expect([a.isLeader, b.isLeader]).toEqual([true, false]);
    await a.stop();
    await b.tick();
    expect(b.isLeader).toBe(true);
    await b.stop();
  });
});

describe('the recovery sweep', () => {
  it('reclaims a step whose lease expired: available again, reclaims 1, no attempt charged', async () => {
    const { runId } = await client.enqueue('sweep.job', null);
    const [claimed] = await store.claim({
      kinds: ['sweep.job'],
      limit: 1,
      workerId: 'gone',
      leaseMs: 1,
    });
    expect(claimed?.runId).toBe(runId);
    const s = scheduler();
    await until(async () => {
      await s.tick();
      const [step] = await client.listSteps(runId);
      return step?.state === 'available';
    }, 'the reclaim');
    const [step] = await client.listSteps(runId);
    expect(step).toMatchObject({ state: 'available', reclaims: 1, attempts: 0 });
    expect((await client.getRun(runId)).reclaimCount).toBe(1);
    await s.stop();
  });
});

describe('the unserved-kind sweep', () => {
  it('discards a step whose kind no live worker handles, naming the kind, and fails its run', async () => {
    await store.registerWorker('worker-1', ['known.kind']);
    const typo = await client.enqueue('knwon.kind', { n: 1 });
    const served = await client.enqueue('known.kind', { n: 2 });
    const s = scheduler({ unservedKindGrace: 0 });
    await s.tick();
    const [step] = await client.listSteps(typo.runId);
    expect(step).toMatchObject({ state: 'discarded', errorKind: 'permanent', attempts: 1 });
    expect(step?.error).toContain('no live worker handles kind "knwon.kind"');
    expect(await client.getRun(typo.runId)).toMatchObject({
      state: 'failed',
      errorKind: 'permanent',
    });
    const [other] = await client.listSteps(served.runId);
    expect(other?.state).toBe('available');
    await s.stop();
    await store.deregisterWorker('worker-1');
  });

  it('leaves steps alone while no worker is live at all (a deploy in progress)', async () => {
    const { runId } = await client.enqueue('lonely.kind', null);
    const s = scheduler({ unservedKindGrace: 0 });
    await s.tick();
    const [step] = await client.listSteps(runId);
    expect(step?.state).toBe('available');
    await s.stop();
  });

  it('waits out the grace period before discarding', async () => {
    await store.registerWorker('worker-2', ['other.kind']);
    const { runId } = await client.enqueue('patient.kind', null);
    const s = scheduler({ unservedKindGrace: '1h' });
    await s.tick();
    const [step] = await client.listSteps(runId);
    expect(step?.state).toBe('available');
    await s.stop();
    await store.deregisterWorker('worker-2');
  });
});

describe('the scanners', () => {
  it('are the recovery sweep, the settlement outbox, the due waits, run deadlines, expired cache entries, the per-minute counts’ retention and the event partitions (once a minute), retention, the unserved-kind sweep and the schedules, each with its interval', () => {
    const s = scheduler({ interval: '2s' });
    expect(s.scanners.map((x) => [x.name, x.interval])).toEqual([
      ['reclaim-expired-leases', 2000],
      ['settle-pending', 2000],
      ['due-waits', 2000],
      ['run-deadlines', 2000],
      ['expired-cache', 2000],
      ['stats-retention', 60_000],
      ['event-partitions', 60_000],
      ['retention', 2000],
      ['unserved-kinds', 2000],
      ['schedules', 2000],
    ]);
    expect(scheduler({ retention: false }).scanners.map((x) => x.name)).not.toContain('retention');
    // The per-minute counts are pruned, and the event partitions kept, whatever the runs' retention.
    expect(scheduler({ retention: false }).scanners.map((x) => x.name)).toEqual(
      expect.arrayContaining(['stats-retention', 'event-partitions']),
    );
    expect(scheduler({ unservedKindGrace: false }).scanners.map((x) => x.name)).not.toContain(
      'unserved-kinds',
    );
  });
});

describe('the event partitions', () => {
  it('are created from the second pass on, the day after the initial partition and the next', async () => {
    const names = async () =>
      (
        await pool.query<{ name: string }>(
          `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
           WHERE i.inhparent = 'cyclone_events'::regclass AND c.relname LIKE 'cyclone\\_events\\_p%'`,
        )
      ).rows.map((r) => r.name);
    const before = await names();
    const scanner = new EventPartitionsScanner(store, 60_000, logger);
    await scanner.runOnce();
    expect(await names()).toEqual(before);
    await scanner.runOnce();
    const made = (await names()).filter((n) => !before.includes(n));
    // The migration's initial partition ends at the next UTC day; today + 2 days are covered.
    const day = (offset: number) =>
      new Date(Math.floor(Date.now() / 86_400_000 + offset) * 86_400_000)
        .toISOString()
        .slice(0, 10)
        .replaceAll('-', '');
    expect(before.length > 0 || made.length === 2).toBe(true);
    expect(await names()).toEqual(
      expect.arrayContaining([
        `cyclone_events_p${day(1)}_000000`,
        `cyclone_events_p${day(2)}_000000`,
      ]),
    );
  });
});

describe('the settlement outbox', () => {
  it('settles a run left marked for settlement at the next tick', async () => {
    const { runId } = await client.enqueue('outbox.job', null);
    // A marker without the settlement it stands for: what a crash after the completion leaves.
    await pool.query('INSERT INTO cyclone_settlements (run_id) VALUES ($1)', [runId]);
    const s = scheduler();
    await s.tick();
    const { rows } = await pool.query('SELECT 1 FROM cyclone_settlements WHERE run_id = $1', [
      runId,
    ]);
    expect(rows).toHaveLength(0);
    // Settling a run with work left changes nothing else.
    expect((await client.getRun(runId)).state).toBe('running');
    await s.stop();
  });
});

describe('start', () => {
  it('fails fast, naming the missing migrations, on a database that was never migrated', async () => {
    const bare = new pg.Pool({ connectionString: db.url, max: 2 });
    bare.on('error', () => undefined); // the database's drop ends idle connections
    const s = new Scheduler({ pool: bare, logger, interval: '1h', schema: 'never_migrated' });
    await expect(s.start()).rejects.toMatchObject({
      code: 'SCHEMA_NOT_MIGRATED',
      message: expect.stringContaining('0000_init'),
    });
    await s.stop();
    await bare.end();
  });

  it('fails fast with DATABASE_UNREACHABLE when nothing listens at the URL', async () => {
    const s = new Scheduler({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      logger,
      interval: '1h',
    });
    await expect(s.start()).rejects.toMatchObject({ code: 'DATABASE_UNREACHABLE' });
    await s.stop();
  });
});
