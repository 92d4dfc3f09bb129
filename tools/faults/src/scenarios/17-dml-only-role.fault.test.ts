/**
 * Scenario 17: after `migrate` ran as the owner of the database, the client, a worker and the
 * scheduler run as a role that may only read and write rows (no DDL, not the owner): submit,
 * signals, timers, schedules, cancel, retry, retention and the recovery sweep all work. The grants
 * it needs are the ones `docs/reliability.md` lists, no more.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { migrate } from '@cyclone/store-postgres';
import { Scheduler } from '@cyclone/scheduler';
import { pino } from 'pino';
import { reportFigures } from '../support/figures.js';
import { useInProcessWorkers } from '../support/in-process-worker.js';
import { startOwnCluster, type OwnCluster } from '../support/own-cluster.js';
import { eventually } from '../support/poll.js';

/** The grants of the application role, as docs/reliability.md gives them. */
const applicationGrants = [
  'GRANT CONNECT ON DATABASE cyclone TO cyclone_app',
  'GRANT USAGE ON SCHEMA public TO cyclone_app',
  'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO cyclone_app',
  'GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cyclone_app',
];

let cluster: OwnCluster;
let ownerUrl: string;
let appUrl: string;
beforeAll(async () => {
  cluster = await startOwnCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query('CREATE ROLE cyclone_owner LOGIN');
  await admin.query('CREATE ROLE cyclone_app LOGIN');
  await admin.query('CREATE DATABASE cyclone OWNER cyclone_owner');
  await admin.end();
  const base = new URL(cluster.url);
  base.pathname = '/cyclone';
  base.username = 'cyclone_owner';
  ownerUrl = base.toString();
  base.username = 'cyclone_app';
  appUrl = base.toString();
  await migrate({ connectionString: ownerUrl });
  const owner = new pg.Client({ connectionString: ownerUrl });
  await owner.connect();
  // PUBLIC may create nothing in the schema (the default since PostgreSQL 15; explicit here).
  await owner.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  for (const grant of applicationGrants) await owner.query(grant);
  await owner.end();
}, 120_000);
afterAll(() => cluster?.destroy());

const workers = useInProcessWorkers(() => appUrl);

const flow = workflow('fault-dml-role')
  .task('first', 'dml.echo')
  .waitTimer('nap', { waitFor: '200ms', dependsOn: ['first'] })
  .waitSignal('go', { signal: 'go', dependsOn: ['nap'] })
  .task('last', 'dml.echo', { dependsOn: ['go'] })
  .build();

it('runs client, worker and scheduler as a role without DDL', async () => {
  const app = new pg.Pool({ connectionString: appUrl, max: 3 });
  app.on('error', () => undefined); // the database's drop ends idle connections
  const client = new Client({ pool: app });
  // The role really cannot change the schema.
  await expect(app.query('CREATE TABLE cyclone_intruder (id int)')).rejects.toThrow(
    /permission denied/,
  );
  await expect(app.query('ALTER TABLE cyclone_runs ADD COLUMN x int')).rejects.toThrow(/owner/);
  await expect(app.query('TRUNCATE cyclone_events')).rejects.toThrow(/permission denied/);

  const scheduler = new Scheduler({
    connectionString: appUrl,
    interval: '100ms',
    workflows: [flow],
    retention: '1s',
    logger: pino({ level: 'silent' }),
  });
  await scheduler.start();
  let attempts = 0;
  await workers.start({
    handlers: {
      'dml.echo': (ctx) => ctx.input as unknown,
      'dml.flaky': () => {
        attempts++;
        throw new Error('not yet');
      },
      'dml.slow': (ctx) =>
        new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve(null))),
    },
    workflows: [flow],
    leaseDuration: '1s',
  });
  try {
    const { runId } = await client.submit(flow, { hello: 'world' });
    await eventually(
      async () =>
        (await client.listSteps(runId)).some(
          (s) => s.node === 'go' && s.state === 'waiting_signal',
        ),
      'the timer to fire and the signal wait to start',
    );
    await client.signal(runId, 'go', { ok: true });
    expect(await client.wait(runId, { timeout: '30s' })).toMatchObject({ state: 'completed' });

    const { runId: flaky } = await client.enqueue('dml.flaky', {}, { maxAttempts: 1 });
    expect(await client.wait(flaky, { timeout: '30s' })).toMatchObject({ state: 'failed' });
    await client.retry(flaky, 'dml.flaky');
    await eventually(
      async () => (await client.getRun(flaky)).state === 'failed' && attempts >= 2,
      'the retry to fail again',
    );

    const { runId: slow } = await client.enqueue('dml.slow', {});
    await eventually(
      async () => (await client.listSteps(slow))[0]?.state === 'running',
      'the slow step to run',
    );
    await client.cancel(slow);
    expect((await client.getRun(slow)).state).toBe('cancelled');

    await client.schedule({
      id: 'dml-every-second',
      cron: '* * * * * *',
      kind: 'dml.echo',
      input: {},
    });
    await eventually(
      async () =>
        (await client.listScheduleFires('dml-every-second')).some((f) => f.outcome === 'submitted'),
      'the schedule to fire',
    );
    await client.pauseSchedule('dml-every-second');
    // Retention (1 s) deletes finished runs: the role may delete rows.
    await eventually(async () => {
      const { rows } = await app.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM cyclone_runs WHERE id = $1',
        [runId],
      );
      return rows[0]!.n === 0;
    }, 'retention to delete the finished run');
    reportFigures('dml-only-role', {
      grants: applicationGrants.length,
      ddl_refused: true,
      submit_signal_timer: 'ok',
      retry_cancel: 'ok',
      schedule: 'ok',
      retention: 'ok',
    });
  } finally {
    await scheduler.stop();
    await client.close();
    await app.end();
  }
});
