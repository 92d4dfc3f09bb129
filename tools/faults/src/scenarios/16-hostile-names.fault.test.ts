/**
 * Scenario 16: hostile names (quotes, SQL, 10,000 characters, NOTIFY channel names) for workflows,
 * nodes, kinds, signals, schedule ids and idempotency keys. Each is refused with a
 * `ValidationError`, or stored verbatim as a bound parameter; the schema is the same afterwards
 * (compared with a dump of tables, columns, indexes, constraints, functions and triggers).
 */
import { expect, it } from 'vitest';
import { ValidationError, workflow } from '@cyclone/core';
import { Channels } from '@cyclone/store-postgres';
import { useFaultDatabase } from '../support/database.js';
import { reportFigures } from '../support/figures.js';
import { useInProcessWorkers } from '../support/in-process-worker.js';
import { schemaDump } from '../support/schema-dump.js';

const db = useFaultDatabase();
const workers = useInProcessWorkers(() => db.url);

const hostile = [
  `it's`,
  `"quoted"`,
  `'; DROP TABLE cyclone_runs; --`,
  `"; DROP TABLE cyclone_steps; --`,
  `$$; DROP TABLE cyclone_events; $$`,
  'n'.repeat(10_000),
  Channels.stepsAvailable,
  `${Channels.stepsAvailable}'); SELECT pg_notify('x', 'y`,
  'a b',
  '../../etc/passwd',
];

type Verdict = 'refused' | 'stored';

async function attempt(action: () => Promise<unknown>): Promise<Verdict> {
  try {
    await action();
    return 'stored';
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return 'refused';
  }
}

it('refuses or parameterises every hostile name and leaves the schema unchanged', async () => {
  await workers.start({ handlers: { 'fault.echo': (ctx) => ctx.input as unknown } });
  const before = await schemaDump(db.pool);
  const tally: Record<string, number> = {};
  const count = (what: string, verdict: Verdict): void => {
    const key = `${what}_${verdict}`;
    tally[key] = (tally[key] ?? 0) + 1;
  };

  for (const name of hostile) {
    count(
      'workflow',
      await attempt(() =>
        Promise.resolve().then(() => workflow(name).task('a', 'fault.echo').build()),
      ),
    );
    count(
      'node',
      await attempt(() =>
        Promise.resolve().then(() => workflow('w').task(name, 'fault.echo').build()),
      ),
    );
    count('kind', await attempt(() => db.client.enqueue(name, {})));
    count(
      'signal',
      await attempt(async () => {
        // A kind no worker handles: the run stays open, so only the name can refuse the signal
        // (a run the worker had completed first would refuse it as ended).
        const { runId } = await db.client.enqueue('fault.unclaimed', {});
        await db.client.signal(runId, name, {});
      }),
    );

    const keyVerdict = await attempt(async () => {
      const first = await db.client.enqueue('fault.echo', { key: 1 }, { idempotencyKey: name });
      const second = await db.client.enqueue('fault.echo', { key: 2 }, { idempotencyKey: name });
      expect(second.runId).toBe(first.runId);
      const [row] = await db.query<{ idempotency_key: string }>(
        'SELECT idempotency_key FROM cyclone_runs WHERE id = $1',
        [first.runId],
      );
      expect(row!.idempotency_key).toBe(name);
    });
    count('idempotency_key', keyVerdict);

    const scheduleVerdict = await attempt(async () => {
      await db.client.schedule({ id: name, cron: '0 0 1 1 *', kind: 'fault.echo', input: {} });
      const schedules = await db.client.listSchedules();
      expect(schedules.map((s) => s.id)).toContain(name);
      await db.client.pauseSchedule(name);
    });
    count('schedule_id', scheduleVerdict);
  }

  const after = await schemaDump(db.pool);
  reportFigures('hostile-names', {
    names: hostile.length,
    ...tally,
    schema_items: after.length,
    schema_changed: before.join('\n') !== after.join('\n'),
  });
  expect(after).toEqual(before);
  // The table the names aimed at is still there and still holds the runs.
  const [{ n }] = (await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM cyclone_runs',
  )) as [{ n: number }];
  expect(n).toBeGreaterThan(0);
});
