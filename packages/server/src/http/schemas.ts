import {
  ExhaustedReasons,
  MaxConcurrencyLimit,
  MaxExhaustedLimit,
  MaxRateLimit,
} from '@cyclone/client';
import { NODE_MOVE_TARGETS, RunState } from '@cyclone/core';
import { z } from 'zod';

/*
 * The schemas every request is parsed with (see api.ts), and which `GET /api/openapi.json`
 * describes. Query strings are text: their numbers are coerced, and `meta({ type })` says what
 * the description should show, since zod's coercion reads any input.
 */

/** An ISO 8601 time (`2026-12-01T12:00:00Z`), as a Date. */
export const isoTime = z
  .string()
  .refine((v) => !Number.isNaN(Date.parse(v)), { message: 'expected an ISO 8601 time' })
  .transform((v) => new Date(v))
  .meta({ type: 'string', format: 'date-time', description: 'An ISO 8601 time' });

/** An integer from `min` to `max` in a query string. */
function queryInteger(min: number, max?: number, description?: string) {
  const atLeast = z.coerce.number().int().min(min);
  const schema =
    max === undefined
      ? atLeast
      : atLeast.max(max, { message: `expected an integer from ${min} to ${max}` });
  return schema.meta({
    type: 'integer',
    minimum: min,
    ...(max === undefined ? {} : { maximum: max }),
    ...(description === undefined ? {} : { description }),
  });
}

/** A page size from a query string. */
export const limitParam = queryInteger(1, MaxExhaustedLimit);

/** `/api/runs/{id}/...`. */
export const runParams = z.strictObject({ id: z.string().meta({ description: 'A run id' }) });

/** `/api/runs/{id}/nodes/{node}/...`. */
export const nodeParams = runParams.extend({
  node: z.string().meta({ description: 'A node name, `node[i]` for an item task, or a step id' }),
});

/** `/api/runs/{id}/signals/{name}`. */
export const signalParams = runParams.extend({
  name: z.string().meta({ description: 'The signal name' }),
});

/** `/api/schedules/{id}/...`. */
export const scheduleParams = z.strictObject({
  id: z.string().meta({ description: 'A schedule id' }),
});

const runStates = Object.values(RunState) as [string, ...string[]];

/** `GET /api/runs`: `state` is one state, a comma-separated list, or repeated. */
export const runsQuery = z.strictObject({
  state: z
    .array(z.string())
    .meta({
      description: `One state, a comma-separated list, or repeated: ${runStates.join(', ')}`,
    })
    .optional()
    .transform((values) => values?.flatMap((v) => v.split(',')).filter((v) => v !== ''))
    .pipe(z.array(z.enum(runStates)).optional()),
  workflow: z.string().min(1).optional(),
  idempotencyKey: z
    .string()
    .min(1)
    .optional()
    .meta({ description: 'Only the run submitted with this idempotency key' }),
  since: isoTime.optional(),
  until: isoTime.optional(),
  /** Only the child runs of this run. */
  parent: z.uuid({ message: 'expected a run id' }).optional(),
  cursor: z.string().min(1).optional(),
  limit: limitParam.optional(),
});

/** `GET /api/runs/:id/events`. */
export const eventsQuery = z.strictObject({
  after: queryInteger(
    0,
    undefined,
    'The last event id seen; omit it to start at the submission (id 0)',
  ).optional(),
  limit: queryInteger(1, 10_000).optional(),
});

/**
 * `POST /api/runs`: a workflow by name. The API description narrows `input` for each workflow the
 * server was given (see `workflow-inputs.ts`).
 */
export const submitBody = z
  .strictObject({
    workflow: z.string().min(1, { message: 'expected the name of a registered workflow' }),
    input: z.unknown().optional(),
    options: z
      .strictObject({
        runDeadline: z.union([z.number(), z.string()]).optional(),
        maxReclaims: z.number().int().min(0).optional(),
        idempotencyKey: z.string().min(1).optional(),
      })
      .optional(),
  })
  .meta({ id: 'SubmitRunRequest' });

/** `POST /api/runs/:id/retry`. */
export const retryBody = z.strictObject({
  node: z.string().min(1, { message: 'expected the name of a discarded node, or a step id' }),
});

/**
 * `POST /api/runs/:id/nodes/:node/transition`. The client checks `reason` and `output` further
 * (a blank reason, an output that is not JSON or too large) and names the field in a 400.
 */
export const transitionBody = z.strictObject({
  to: z.enum(NODE_MOVE_TARGETS as unknown as [string, ...string[]], {
    message: `expected one of ${NODE_MOVE_TARGETS.join(', ')}`,
  }),
  output: z.unknown().optional().meta({ description: 'The output of a move to completed (JSON)' }),
  reason: z.string({ message: 'expected the reason for the move' }).min(1, {
    message: 'expected a non-empty reason',
  }),
  force: z
    .boolean()
    .optional()
    .meta({ description: 'Apply the move even where the transition table does not make it' }),
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
  fires: queryInteger(
    0,
    100,
    'How many of its newest fires to show with each schedule (default 5)',
  ).optional(),
});

/** `GET /api/schedules/:id/fires`. */
export const firesQuery = z.strictObject({ limit: limitParam.optional() });

/** `POST /api/schedules/:id/backfill`. */
export const backfillBody = z.strictObject({ from: isoTime, to: isoTime });

/** `POST /api/runs/:id/signals/:name`: the payload, any JSON; an empty body sends none. */
export const signalPayload = z.unknown().meta({ description: 'The payload: any JSON' });

/** `/api/limits/concurrency/{kind}` and `/api/limits/rate/{kind}`. */
export const limitParams = z.strictObject({
  kind: z.string().meta({ description: 'A handler kind, e.g. `payments.charge`' }),
});

/** `PUT /api/fair-share/{kind}`: the weights by key, checked by the client (400 names the key). */
export const fairShareBody = z.strictObject({
  weights: z
    .record(z.string(), z.unknown(), { message: 'expected an object of weights by key' })
    .optional()
    .meta({
      description:
        'Steps a concurrency key takes in its turn, by key: whole numbers from 1 to 1,000. Keys not named, and steps without a key, weigh 1. Default {}',
    }),
});

/** A whole number from 1 to `max` in a JSON body. */
function bodyInteger(max: number, description: string) {
  const message = `expected a whole number from 1 to ${max}`;
  return z
    .number({ message })
    .int({ message })
    .min(1, { message })
    .max(max, { message })
    .meta({ description });
}

const perKeyField = z.boolean({ message: 'expected true or false' }).optional().meta({
  description:
    "Count per concurrency key (the steps' `concurrencyKey`); steps without a key form one group. Default false",
});

/** `PUT /api/limits/concurrency/{kind}`. */
export const concurrencyLimitBody = z.strictObject({
  max: bodyInteger(
    MaxConcurrencyLimit,
    'Most steps of the kind running at once (per concurrency key with `perKey`)',
  ),
  perKey: perKeyField,
});

/** `PUT /api/limits/rate/{kind}`. */
export const rateLimitBody = z.strictObject({
  limit: bodyInteger(
    MaxRateLimit,
    'Most starts of steps of the kind within any `period` (per concurrency key with `perKey`)',
  ),
  period: z
    .union([z.number(), z.string()], {
      message: "expected a period: milliseconds or a duration such as '500ms', '2s', '1m', '1h'",
    })
    .meta({
      description:
        "The sliding window: milliseconds, or a duration such as '500ms', '2s', '1m', '1h', '1d'; from 1 ms to 30 days",
    }),
  perKey: perKeyField,
});
/** `GET /api/stats`: a window from one minute to a day, and an optional kind. */
export const statsQuery = z.strictObject({
  window: z
    .string()
    .regex(/^[1-9][0-9]*[mh]$/, { message: "expected minutes or hours: '30m', '1h', '24h'" })
    .refine((v) => windowMs(v) <= 24 * 3_600_000, { message: 'expected at most 24h' })
    .optional()
    .meta({ description: "How far back: minutes or hours up to a day ('30m', '1h', '24h'); 1h" }),
  kind: z.string().min(1).optional().meta({ description: 'Only this handler kind' }),
});

/** The milliseconds of a `statsQuery` window (`'30m'`, `'1h'`). */
export function windowMs(window: string): number {
  const n = Number(window.slice(0, -1));
  return n * (window.endsWith('h') ? 3_600_000 : 60_000);
}
