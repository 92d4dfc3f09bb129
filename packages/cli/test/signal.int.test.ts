import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { expectEventsFollowTable, useTestDatabase } from '@cyclone/test-db';
import { main, type Output } from '../src/index.js';

// The commands read CYCLONE_DATABASE_URL; these tests name their database explicitly.
delete process.env.CYCLONE_DATABASE_URL;

const db = useTestDatabase();
let pool: pg.Pool;
let client: Client;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  client = new Client({ pool });
});
afterAll(async () => {
  await expectEventsFollowTable(pool, 0);
  await client.close();
  await pool.end();
});

/** Runs the command and captures what it prints. */
async function cyclone(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const output: Output = { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false };
  const code = await main(argv, output);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const waits = workflow('cli-waits')
  .waitN('votes', { signal: 'vote', n: 3, maxWait: '2h' })
  .waitTimer('cool-off', { waitFor: '10m' })
  .build();

describe('cyclone signal', () => {
  it('delivers a signal, shows what each wait waits for and how long is left, and delivers an id once', async () => {
    const { runId } = await client.submit(waits);
    const sent = await cyclone(
      'signal',
      runId,
      'vote',
      '{"by":"ann"}',
      '--id',
      'v1',
      '--database-url',
      db.url,
    );
    expect(sent).toMatchObject({ code: 0 });
    expect(sent.out).toContain('consumed by votes');
    const again = await cyclone(
      'signal',
      runId,
      'vote',
      '{"by":"ann"}',
      '--id',
      'v1',
      '--database-url',
      db.url,
    );
    expect(again.out).toContain('already delivered');

    const steps = await cyclone('steps', runId, '--database-url', db.url);
    expect(steps.out).toMatch(
      /votes\s+wait_n\s+waiting_signal\s+.*signal vote \(1\/3\), 1h\d+m left/,
    );
    expect(steps.out).toMatch(/cool-off\s+wait_timer\s+waiting_timer\s+.*timer, \d+m(\d+s)? left/);
    const show = await cyclone('runs', 'show', runId, '--database-url', db.url);
    expect(show.out).toMatch(/waiting\s+votes: signal vote \(1\/3\)/);
    expect(show.out).toMatch(/waiting\s+cool-off: timer/);
  });

  it('exits 3 for an unknown run, 1 for a terminal run or a bad name, 2 for a payload that is not JSON', async () => {
    const unknown = await cyclone(
      'signal',
      '0190c1a0-0000-7000-8000-000000000000',
      'vote',
      '--database-url',
      db.url,
    );
    expect(unknown.code).toBe(3);
    const { runId } = await client.submit(
      workflow('cli-done').waitSignal('w', { signal: 's' }).build(),
    );
    expect((await cyclone('signal', runId, 's', '--database-url', db.url)).code).toBe(0);
    const terminal = await cyclone('signal', runId, 's', '--database-url', db.url);
    expect(terminal.code).toBe(1);
    expect(terminal.err).toContain('ALREADY_TERMINAL');
    const badName = await cyclone('signal', runId, 'no spaces', '--database-url', db.url);
    expect(badName.code).toBe(1);
    expect(badName.err).toContain('name');
    const badJson = await cyclone('signal', runId, 's', '{nope', '--database-url', db.url);
    expect(badJson.code).toBe(2);
    expect(badJson.err).toContain('payload must be JSON');
  });
});
