import assert from 'node:assert/strict';
import { setTimeout } from 'node:timers/promises';
import { typed, workflow } from '@cyclone/core';
import { Client } from '@cyclone/client';
import { Scheduler } from '@cyclone/scheduler';
import { migrate } from '@cyclone/store-postgres';
import { handlersFor, Worker } from '@cyclone/worker';

const connectionString = process.env.CYCLONE_DATABASE_URL ?? process.env.DATABASE_URL;
if (!connectionString) throw new Error('set CYCLONE_DATABASE_URL, e.g. postgres://localhost/app');
await migrate({ connectionString });

const digest = workflow('digest', { input: typed<{ list: string }>() })
  .task('send', 'digest.send', { output: typed<{ list: string }>() })
  .build();

// Schedules fire from `cyclone scheduler` (or a Scheduler like this one, or `cyclone worker
// --scheduler`): one leader among its replicas fires each tick once. Workers run the runs.
const scheduler = new Scheduler({ connectionString, interval: '200ms' });
const worker = new Worker({
  connectionString,
  workflows: [digest],
  handlers: handlersFor(digest, { send: async (ctx) => ({ list: ctx.input.list }) }),
});
await Promise.all([scheduler.start(), worker.start()]);
const client = new Client({ connectionString });

// Create (or replace: schedule() upserts by id). Six fields: every second, for the demo.
await client.schedule({
  id: 'digest-news',
  cron: '* * * * * *',
  workflow: digest,
  input: { list: 'news' },
  overlap: 'skip', // a tick while the previous run is active is recorded skipped
  catchUp: 'latest', // after a downtime, one run for the ticks missed
});
while ((await client.listScheduleFires('digest-news', { limit: 1 })).length === 0) {
  await setTimeout(100);
}
console.log('fired:', (await client.listScheduleFires('digest-news', { limit: 1 }))[0]?.outcome);

await client.pauseSchedule('digest-news'); // no tick fires while paused, even later
const resumed = await client.resumeSchedule('digest-news'); // from the next tick on
assert.equal(resumed.enabled, true);

// Backfill the ticks of a past range that have no run: [from, to), to not in the future.
const minute = 60_000;
const to = new Date(Math.floor(Date.now() / minute) * minute - 10 * minute);
const from = new Date(to.getTime() - 3_000); // three ticks of a one-second cron
const { created, skipped } = await client.backfill('digest-news', { from, to });
console.log('backfilled:', created, 'created,', skipped, 'skipped'); // 3 created, 0 skipped

// Delete: the schedule and the record of its fires go; the runs it started stay.
const deleted = await client.deleteSchedule('digest-news');
assert.equal(deleted.id, 'digest-news');
assert.deepEqual(await client.listSchedules(), []);

await Promise.all([worker.stop(), scheduler.stop()]);
await client.close();
