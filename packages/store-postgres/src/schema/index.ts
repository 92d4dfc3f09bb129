/**
 * `@cyclone/store-postgres/schema`: Cyclone's tables as Drizzle table objects, for applications
 * that query them with Drizzle.
 *
 * @example
 * ```ts
 * import { drizzle } from 'drizzle-orm/node-postgres';
 * import { eq } from 'drizzle-orm';
 * import { cycloneRuns } from '@cyclone/store-postgres/schema';
 *
 * const db = drizzle(process.env.CYCLONE_DATABASE_URL!);
 * const failed = await db.select().from(cycloneRuns).where(eq(cycloneRuns.state, 'failed'));
 * ```
 *
 * @packageDocumentation
 */
export { cycloneRuns } from './runs.js';
export { cycloneRunKeys } from './run-keys.js';
export { cycloneSteps } from './steps.js';
export { cycloneWorkflows } from './workflows.js';
export { cycloneSignals } from './signals.js';
export { cycloneEvents } from './events.js';
export { cycloneSchedules, OVERLAP_POLICIES, CATCH_UP_POLICIES } from './schedules.js';
export { cycloneScheduleFires, FIRE_OUTCOMES } from './schedule-fires.js';
export { cycloneLeaders } from './leases.js';
export { cycloneLeaderGaps } from './leader-gaps.js';
export { cycloneWorkers } from './workers.js';
export { cycloneSettlements } from './settlements.js';
export { cycloneLimits, cycloneRateStarts } from './limits.js';
export { cycloneFairShares } from './fair-shares.js';
export { cycloneCache } from './result-cache.js';
export { cycloneStatsMinutes } from './stats-minutes.js';
export type { RowOf, RunRecord, StepRecord, EventRecord } from './rows.js';
