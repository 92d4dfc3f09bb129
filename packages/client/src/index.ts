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
export {
  Client,
  type ClientOptions,
  type EnqueueArguments,
  type Submitted,
  type SubmitArguments,
} from './client.js';
export type { RunId } from './run-id.js';
export type { WaitOptions } from './run-inspection.js';
export type { SubmitOptions, EnqueueOptions, RunOptions, SignalOptions } from './options.js';
export { MaxIdempotencyKeyLength, MaxSignalIdLength } from './options.js';
export { RunHandle } from './run-handle.js';
export { ExhaustedReasons, MaxExhaustedLimit } from './operator-queries.js';
export type {
  NodeExplanation,
  ExplainReason,
  ForceStepOptions,
  NodeMoveTarget,
} from '@cyclone/core';
export type {
  NodeLocator,
  RunQuery,
  RunPage,
  SignalReceipt,
  ExhaustedQuery,
  ExhaustedPage,
  ExhaustedStep,
  ExhaustedReason,
  RedriveQuery,
  RedriveResult,
  ForcedMove,
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
export type {
  ConcurrencyLimit,
  ConcurrencyLimitOptions,
  RateLimit,
  RateLimitOptions,
} from './limit-controls.js';
export { MaxConcurrencyLimit, MaxRateLimit, MaxRatePeriodMs } from './limit-controls.js';
export type { FairShare, FairShareOptions } from './fair-share-controls.js';
export { MaxFairShareWeight, MaxFairShareWeights } from './fair-share-controls.js';
