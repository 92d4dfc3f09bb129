/**
 * Helpers of the schedule tests: per-minute schedules and scheduler leases on the test's clock,
 * which lies in the database's past.
 */
import { nextCronFire, type CatchUpPolicy, type OverlapPolicy } from '@cyclone/core';
import type { StoreFixture } from '../fixture.js';

/** A per-minute UTC job schedule whose first unhandled tick is the first after `after`. */
export async function minutelySchedule(
  fx: StoreFixture,
  id: string,
  after: Date,
  options: { kind?: string; overlap?: OverlapPolicy; catchUp?: CatchUpPolicy } = {},
): Promise<void> {
  const cron = { cron: '* * * * *', timezone: 'UTC' };
  await fx.store.upsertSchedule({
    id,
    ...cron,
    workflow: null,
    definition: null,
    kind: options.kind ?? `${id}.job`,
    inputJson: 'null',
    enabled: true,
    overlap: options.overlap ?? 'allow',
    catchUp: options.catchUp ?? 'latest',
    catchUpLimit: 100,
  });
  await fx.query('UPDATE cyclone_schedules SET next_run_at = $2 WHERE id = $1', [
    id,
    nextCronFire(cron, after),
  ]);
}

/**
 * A leader lease renewed at `renewedAt` with the given downtimes ([from, until] pairs), written
 * as taking and renewing the lease would write them.
 */
export async function leaseOnTestClock(
  fx: StoreFixture,
  name: string,
  renewedAt: Date,
  downtimes: [Date | null, Date][] = [],
): Promise<void> {
  await fx.query(
    `INSERT INTO cyclone_leaders (name, holder, expires_at, renewed_at, led_since)
     VALUES ($1, 'test', $2::timestamptz + interval '1 minute', $2, $2)`,
    [name, renewedAt],
  );
  for (const [from, until] of downtimes) {
    await fx.query(
      'INSERT INTO cyclone_leader_gaps (name, started_at, ended_at) VALUES ($1, $2, $3)',
      [name, from, until],
    );
  }
}
