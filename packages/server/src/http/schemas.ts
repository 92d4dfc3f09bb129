import { ExhaustedReasons, MaxExhaustedLimit } from '@cyclone/client';
import { RunState } from '@cyclone/core';
import { z } from 'zod';

/** An ISO 8601 time (`2026-12-01T12:00:00Z`), as a Date. */
export const isoTime = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), { message: 'expected an ISO 8601 time' })
  .transform((v) => new Date(v));

/** A page size from a query string. */
export const limitParam = z.coerce
  .number()
  .int()
  .min(1)
  .max(MaxExhaustedLimit, { message: `expected an integer from 1 to ${MaxExhaustedLimit}` });

const runStates = Object.values(RunState) as [string, ...string[]];

/** `GET /api/runs`: `state` is one state, a comma-separated list, or repeated. */
export const runsQuery = z.strictObject({
  state: z
    .array(z.string())
    .optional()
    .transform((values) => values?.flatMap((v) => v.split(',')).filter((v) => v !== ''))
    .pipe(z.array(z.enum(runStates)).optional()),
  workflow: z.string().min(1).optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
  /** Only the child runs of this run. */
  parent: z.uuid({ message: 'expected a run id' }).optional(),
  cursor: z.string().min(1).optional(),
  limit: limitParam.optional(),
});

/** `GET /api/runs/:id/events`. */
export const eventsQuery = z.strictObject({
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(10_000).optional(),
});

/** `POST /api/runs`: a workflow by the name it was stored under. */
export const submitBody = z.strictObject({
  workflow: z.string().min(1, { message: 'expected the name of a registered workflow' }),
  input: z.unknown().optional(),
  options: z
    .strictObject({
      runDeadline: z.union([z.number(), z.string()]).optional(),
      maxReclaims: z.number().int().min(0).optional(),
      idempotencyKey: z.string().min(1).optional(),
    })
    .optional(),
});

/** `POST /api/runs/:id/retry`. */
export const retryBody = z.strictObject({
  node: z.string().min(1, { message: 'expected the name of a discarded node, or a step id' }),
});

/** `POST /api/runs/:id/signals/:name`. */
export const signalQuery = z.strictObject({ id: z.string().min(1).optional() });

const reason = z.enum(ExhaustedReasons as unknown as [string, ...string[]]);

/** `GET /api/dlq`. */
export const dlqQuery = z.strictObject({
  reason: reason.optional(),
  workflow: z.string().min(1).optional(),
  cursor: z.string().min(1).optional(),
  limit: limitParam.optional(),
});

/** `POST /api/dlq/redrive`; an empty body redrives everything. */
export const redriveBody = z
  .strictObject({
    reason: reason.optional(),
    workflow: z.string().min(1).optional(),
    before: isoTime.optional(),
    limit: z.number().int().min(1).max(MaxExhaustedLimit).optional(),
  })
  .optional()
  .transform((v) => v ?? {});

/** `GET /api/schedules`: how many recent fires to include with each schedule. */
export const schedulesQuery = z.strictObject({
  fires: z.coerce.number().int().min(0).max(100).optional(),
});

/** `GET /api/schedules/:id/fires`. */
export const firesQuery = z.strictObject({ limit: limitParam.optional() });

/** `POST /api/schedules/:id/backfill`. */
export const backfillBody = z.strictObject({ from: isoTime, to: isoTime });
