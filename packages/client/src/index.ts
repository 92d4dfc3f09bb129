/**
 * `@cyclone/client`: submit, inspect and wait for Cyclone runs from any service.
 *
 * @example
 * ```ts
 * import { workflow } from '@cyclone/core';
 * import { Client } from '@cyclone/client';
 *
 * const client = new Client({ connectionString: process.env.CYCLONE_DATABASE_URL! });
 * const { runId } = await client.enqueue('email.send', { to: 'ada@example.com' });
 * console.log(await client.wait(runId));
 * ```
 *
 * @packageDocumentation
 */
export { Client, type ClientOptions, type Submitted, type WaitOptions } from './client.js';
export type { SubmitOptions, EnqueueOptions, RunOptions } from './options.js';
export { MaxIdempotencyKeyLength } from './options.js';
export type {
  RunQuery,
  RunPage,
  ScheduleStatus,
  ScheduleFire,
  FireOutcome,
  BackfillResult,
} from '@cyclone/store-postgres';
export {
  MaxScheduleIdLength,
  type ScheduleOptions,
  type ListScheduleFiresOptions,
  type BackfillRange,
} from './schedule-options.js';
