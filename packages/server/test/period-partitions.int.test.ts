/**
 * Every reader of the HTTP API (and so of the dashboard, which lists and shows runs through it)
 * on a run whose row, steps and events are in a period's partitions rather than the initial ones
 * (runs, steps and events partitioned by their run's period: decisions 347-352 and 430-449).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { workflow } from '@cyclone/core';
import { useServer } from './support.js';

const env = useServer();
const DAY = 86_400_000;

/** The smallest UUID of millisecond `ms`: a period's bound. */
function bound(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

const order = workflow('period-order')
  .task('charge', 'period.charge')
  .task('ship', 'period.ship', { dependsOn: ['charge'] })
  .build();

beforeAll(async () => {
  // The initial partitions end at the start of today, and today has a partition of each table,
  // as once the scheduler has kept the periods for a day: today's runs are in today's partitions.
  const today = Math.floor(Date.now() / DAY) * DAY;
  for (const table of ['cyclone_steps', 'cyclone_runs', 'cyclone_events']) {
    await env.pool.query(`ALTER TABLE ${table} DETACH PARTITION ${table}_initial`);
    await env.pool.query(
      `ALTER TABLE ${table} ATTACH PARTITION ${table}_initial
       FOR VALUES FROM (MINVALUE) TO ('${bound(today)}')`,
    );
    await env.pool.query(
      `CREATE TABLE ${table}_today PARTITION OF ${table}
       FOR VALUES FROM ('${bound(today)}') TO ('${bound(today + DAY)}')`,
    );
  }
});

describe('a run in a period partition', () => {
  it('is shown, listed, explained and its events read through every route', async () => {
    const { runId } = await env.client.submit(order, { n: 1 });
    await env.client.cancel(runId);
    const { rows } = await env.pool.query<{ t: string }>(
      `SELECT tableoid::regclass::text AS t FROM cyclone_runs WHERE id = $1
       UNION SELECT tableoid::regclass::text FROM cyclone_steps WHERE run_id = $1
       UNION SELECT tableoid::regclass::text FROM cyclone_events WHERE run_id = $1 ORDER BY 1`,
      [runId],
    );
    expect(rows.map((r) => r.t)).toEqual([
      'cyclone_events_today',
      'cyclone_runs_today',
      'cyclone_steps_today',
    ]);

    const shown = await env.call('GET', `/api/runs/${runId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.run).toMatchObject({
      id: runId,
      workflow: 'period-order',
      state: 'cancelled',
    });
    expect(shown.body.steps.map((s: { node: string }) => s.node).sort()).toEqual([
      'charge',
      'ship',
    ]);

    const listed = await env.call('GET', '/api/runs?workflow=period-order');
    expect(listed.status).toBe(200);
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toEqual([runId]);

    const events = await env.call('GET', `/api/runs/${runId}/events`);
    expect(events.status).toBe(200);
    expect(events.body.events.map((e: { type: string }) => e.type)).toContain('run_cancelled');

    const explained = await env.call('GET', `/api/runs/${runId}/nodes/ship/explain`);
    expect(explained.status).toBe(200);
    expect(explained.body).toMatchObject({ node: 'ship', state: 'cancelled' });
    expect((await env.client.explain(runId, 'ship')).state).toBe('cancelled');
  });
});
