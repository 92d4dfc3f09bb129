/**
 * The response schemas describe the client's types exactly: each schema's type and the type it
 * describes are assignable to each other (readonly aside), so a field added to, dropped from or
 * changed in either fails the type-check (`npm run typecheck` covers this file).
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { ConcurrencyLimit, RateLimit } from '@cyclone/client';
import type { NodeExplanation, RunStatus, StepEvent, StepStatus } from '@cyclone/core';
import type {
  BackfillResult,
  ExhaustedPage,
  KindQueueOverview,
  SchedulerLeaderOverview,
  WorkerOverview,
  RedriveResult,
  RunPage,
  ScheduleFire,
  ScheduleStatus,
  SignalReceipt,
  SubmittedRun,
} from '@cyclone/store-postgres';
import type { Frozen } from '../src/http/api.js';
import type {
  backfillResult,
  concurrencyLimit,
  exhaustedPage,
  kindQueue,
  nodeExplanation,
  rateLimit,
  redriveResult,
  runPage,
  runStatus,
  scheduleFire,
  scheduleStatus,
  schedulerLeader,
  sessionBody,
  signalReceipt,
  stepEvent,
  stepStatus,
  submittedRun,
  workerOverview,
} from '../src/http/response-schemas.js';
import type { SessionBody } from '../src/routes/session.js';

/** True when a schema's type and `T` are assignable to each other, readonly aside. */
type Describes<S extends z.ZodType, T> = [Frozen<z.output<S>>] extends [Frozen<T>]
  ? [Frozen<T>] extends [Frozen<z.output<S>>]
    ? true
    : false
  : false;

const exact: {
  run: Describes<typeof runStatus, RunStatus>;
  step: Describes<typeof stepStatus, StepStatus>;
  event: Describes<typeof stepEvent, StepEvent>;
  explanation: Describes<typeof nodeExplanation, NodeExplanation>;
  runPage: Describes<typeof runPage, RunPage>;
  submitted: Describes<typeof submittedRun, SubmittedRun>;
  receipt: Describes<typeof signalReceipt, SignalReceipt>;
  dlq: Describes<typeof exhaustedPage, ExhaustedPage>;
  redrive: Describes<typeof redriveResult, RedriveResult>;
  schedule: Describes<typeof scheduleStatus, ScheduleStatus>;
  fire: Describes<typeof scheduleFire, ScheduleFire>;
  backfill: Describes<typeof backfillResult, BackfillResult>;
  session: Describes<typeof sessionBody, SessionBody>;
  concurrencyLimit: Describes<typeof concurrencyLimit, ConcurrencyLimit>;
  rateLimit: Describes<typeof rateLimit, RateLimit>;
  queue: Describes<typeof kindQueue, KindQueueOverview>;
  worker: Describes<typeof workerOverview, WorkerOverview>;
  leader: Describes<typeof schedulerLeader, SchedulerLeaderOverview>;
} = {
  run: true,
  step: true,
  event: true,
  explanation: true,
  runPage: true,
  submitted: true,
  receipt: true,
  dlq: true,
  redrive: true,
  schedule: true,
  fire: true,
  backfill: true,
  session: true,
  concurrencyLimit: true,
  rateLimit: true,
  queue: true,
  worker: true,
  leader: true,
};

describe('the response schemas', () => {
  it('describe the client’s types exactly (checked by the type-check)', () => {
    expect(Object.values(exact).every(Boolean)).toBe(true);
  });
});
