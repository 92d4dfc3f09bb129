import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { Scheduler } from '../src/index.js';

const db = useTestDatabase();
const logger = pino({ level: 'silent' });
let pool: pg.Pool;
let client: Client;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  pool.on('error', () => undefined); // the database's drop ends idle connections
  client = new Client({ pool });
});
let checkedEventId = 0;
afterEach(async () => {
  checkedEventId = await expectEventsFollowTable(pool, checkedEventId);
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
  (await pool.query<R>(text, values)).rows;

async function until<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the run-deadline scanner', () => {
  it('fails a run submitted with runDeadline once the deadline passed, discarding its open steps', async () => {
    const def = workflow('sched-deadline')
      .task('a', 'sd.a')
      .task('b', 'sd.b', { dependsOn: ['a'] })
      .build();
    const { runId } = await client.submit(def, null, { runDeadline: '1h' });
    const s = new Scheduler({ pool, logger, interval: '1h', retention: false });
    await s.tick();
    expect((await client.getRun(runId)).state).toBe('running');
    // A controllable clock: move the deadline into the past rather than wait for it.
    await query(`UPDATE cyclone_runs SET deadline_at = now() - interval '1 ms' WHERE id = $1`, [
      runId,
    ]);
    await s.tick();
    const run = await client.getRun(runId);
    expect(run).toMatchObject({
      state: 'failed',
      errorKind: 'deadline',
      error: 'run deadline exceeded',
    });
    const steps = await client.listSteps(runId);
    expect(steps.map((x) => [x.node, x.state, x.errorKind])).toEqual([
      ['a', 'discarded', 'deadline'],
      ['b', 'discarded', 'deadline'],
    ]);
    expect((await client.listExhausted({ reason: 'deadline' })).steps.map((x) => x.runId)).toEqual([
      runId,
      runId,
    ]);
    await s.tick();
    const fails = await query(
      `SELECT 1 FROM cyclone_events WHERE run_id = $1 AND type = 'run_failed'`,
      [runId],
    );
    expect(fails).toHaveLength(1);
    await s.stop();
  });
});

describe('the retention scanner', () => {
  it('deletes runs finished longer ago than the retention, and keeps all with retention false', async () => {
    const { runId } = await client.enqueue('ret.job', null);
    await client.cancel(runId);
    await query(
      `UPDATE cyclone_runs SET created_at = now() - interval '3 hours', ended_at = now() - interval '2 hours' WHERE id = $1`,
      [runId],
    );
    const keepAll = new Scheduler({ pool, logger, interval: '1h', retention: false });
    await keepAll.tick();
    expect(await query('SELECT 1 FROM cyclone_runs WHERE id = $1', [runId])).toHaveLength(1);
    await keepAll.stop();
    const s = new Scheduler({ pool, logger, interval: '1h', retention: '1h' });
    await s.tick();
    expect(await query('SELECT 1 FROM cyclone_runs WHERE id = $1', [runId])).toHaveLength(0);
    expect(await query('SELECT 1 FROM cyclone_steps WHERE run_id = $1', [runId])).toHaveLength(0);
    expect(await query('SELECT 1 FROM cyclone_events WHERE run_id = $1', [runId])).toHaveLength(0);
    await s.stop();
  });
});

describe('several replicas', () => {
  it('never lead together, and a stalled leader is replaced within its lease plus one interval', async () => {
    const intervalMs = 200;
    // Each replica on its own pool, as separate processes would be.
    const a = new Scheduler({
      connectionString: db.url,
      logger,
      interval: `${intervalMs}ms`,
      id: 'replica-a',
    });
    const b = new Scheduler({
      connectionString: db.url,
      logger,
      interval: `${intervalMs}ms`,
      id: 'replica-b',
    });
    await a.start();
    await b.start();
    const leader = await until(
      async () => (a.isLeader ? a : b.isLeader ? b : undefined),
      'a leader',
    );
    const other = leader === a ? b : a;
    // Over many of their ticks, the lease row names one holder and never both replicas lead.
    for (let i = 0; i < 40; i++) {
      expect(a.isLeader && b.isLeader).toBe(false);
      await new Promise((r) => setTimeout(r, intervalMs / 4));
    }
    // Stall the leader: its elections hang, as in a frozen process; it can no longer renew.
    const stalledAt = Date.now();
    (
      leader as unknown as { store: { attemptLeadership: () => Promise<boolean> } }
    ).store.attemptLeadership = () => new Promise<boolean>(() => undefined);
    await until(async () => other.isLeader, 'the other replica to take over', 20_000);
    const tookMs = Date.now() - stalledAt;
    // The bound: the leader lease is 5 intervals; the other replica tries once an interval.
    // Generous slack for a loaded machine, but far below what no fail-over would give.
    expect(tookMs).toBeLessThan(intervalMs * 6 + 5_000);
    const [row] = await query<{ holder: string }>(`SELECT holder FROM cyclone_leaders`);
    expect(row?.holder).toBe(other === a ? 'replica-a' : 'replica-b');
    await other.stop();
    (leader as unknown as { stopped: boolean }).stopped = true;
    clearInterval((leader as unknown as { timer: NodeJS.Timeout }).timer);
    await (leader as unknown as { closeConnection: () => Promise<void> }).closeConnection();
  });
});
