import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@cyclone/client';
import { useTestDatabase } from '@cyclone/test-db';
import { runCyclone, startCyclone } from './support/run-cyclone.js';

const db = useTestDatabase();
let client: Client;
beforeAll(() => {
  client = new Client({ connectionString: db.url });
});
afterAll(() => client.close());

/** The scheduler lease's holder and whether it is still in force, by the database clock. */
async function schedulerLease(): Promise<{ holder: string; active: boolean } | undefined> {
  const connection = new pg.Client({ connectionString: db.url });
  await connection.connect();
  try {
    const { rows } = await connection.query<{ holder: string; active: boolean }>(
      `SELECT holder, expires_at > now() AS active FROM cyclone_leaders WHERE name = 'scheduler'`,
    );
    return rows[0];
  } finally {
    await connection.end();
  }
}

describe('cyclone scheduler', () => {
  it('leads, runs the scanners (a run past its deadline fails), then stops cleanly on SIGTERM', async () => {
    const scheduler = startCyclone([
      'scheduler',
      '--interval',
      '200ms',
      '--retention',
      'off',
      '--json',
      '--database-url',
      db.url,
    ]);
    try {
      await scheduler.waitForOutput((out) => out.includes('"event":"ready"'));
      const ready = JSON.parse(scheduler.stdout().split('\n')[0]!) as Record<string, unknown>;
      expect(ready).toMatchObject({ event: 'ready', interval: '200ms', retention: 'off' });

      // No worker serves this kind: only the scheduler's run-deadline scanner can end the run.
      const { runId } = await client.enqueue('nobody.serves', {}, { runDeadline: '100ms' });
      const run = await client.wait(runId, { timeout: '60s' });
      expect(run.state).toBe('failed');
      expect((await client.listSteps(runId))[0]).toMatchObject({ errorKind: 'deadline' });
      expect(await schedulerLease()).toEqual({ holder: ready.id, active: true });

      scheduler.child.kill('SIGTERM');
      expect(await scheduler.exited(30_000)).toBe(0);
      expect(scheduler.stdout()).toContain('"event":"stopped"');
      // The lease was given up at once, so another replica can take over at its next interval.
      expect(await schedulerLease()).toEqual({ holder: ready.id, active: false });
      expect(scheduler.stderr()).not.toMatch(/\n\s+at /); // no stack trace
    } finally {
      scheduler.child.kill('SIGKILL');
    }
  }, 90_000);

  it('refuses a bad --interval or --retention with exit code 2', async () => {
    const interval = await runCyclone([
      'scheduler',
      '--interval',
      'soon',
      '--database-url',
      db.url,
    ]);
    expect(interval.code).toBe(2);
    expect(interval.stderr).toContain('--interval expects a duration');
    const retention = await runCyclone([
      'scheduler',
      '--retention',
      'forever',
      '--database-url',
      db.url,
    ]);
    expect(retention.code).toBe(2);
    expect(retention.stderr).toContain('--retention expects a duration');
  }, 60_000);
});
