import pg from 'pg';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { Client } from '@cyclone/client';
import { Scheduler } from '../src/index.js';

const db = useTestDatabase();
const logger = pino({ level: 'silent' });
let pool: pg.Pool;
let client: Client;
let checkedEventId = 0;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  pool.on('error', () => undefined); // the database's drop ends idle connections
  client = new Client({ pool });
});
afterEach(async () => {
  checkedEventId = await expectEventsFollowTable(pool, checkedEventId);
});
afterAll(async () => {
  await client.close();
  await pool.end();
});

/** Ticks a scheduler until `probe` holds (each tick is one pass of every scanner). */
async function tickUntil(scheduler: Scheduler, probe: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await scheduler.tick();
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const stateOf = async (runId: string, node: string) =>
  (await client.listSteps(runId)).find((s) => s.node === node)!;

describe('the due-waits scanner', () => {
  it('is in the scheduler’s list', async () => {
    const scheduler = new Scheduler({ pool, logger, interval: '1h' });
    expect(scheduler.scanners.map((s) => s.name)).toContain('due-waits');
    await scheduler.stop();
  });

  it('fires a due timer with { firedAt } and lapses a max wait, not before they are due', async () => {
    const def = workflow('scan-waits')
      .waitTimer('soon', { waitFor: '150ms' })
      .waitTimer('later', { waitFor: '1h' })
      .waitSignal('approval', { signal: 'ok', maxWait: '150ms' })
      .build();
    const { runId } = await client.submit(def);
    const scheduler = new Scheduler({ pool, logger, interval: '1h' });
    await tickUntil(
      scheduler,
      async () =>
        (await stateOf(runId, 'soon')).state === 'completed' &&
        (await stateOf(runId, 'approval')).state === 'completed',
      'the timer to fire and the max wait to lapse',
    );
    const soon = await stateOf(runId, 'soon');
    const firedAt = new Date((soon.output as { firedAt: string }).firedAt);
    expect(firedAt.getTime()).toBeGreaterThanOrEqual(soon.scheduledAt.getTime());
    expect(await stateOf(runId, 'approval')).toMatchObject({
      timedOut: true,
      output: { payload: null, timedOut: true },
    });
    expect((await stateOf(runId, 'later')).state).toBe('waiting_timer');
    const events = await client.events(runId);
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['timer_fired', 'wait_lapsed']),
    );
    await scheduler.stop();
  });
});
