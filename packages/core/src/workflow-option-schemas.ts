import { z } from 'zod';
import {
  MaxCount,
  MaxTimeoutMs,
  expected,
  nameListSchema,
  nodeNameSchema,
  numberSchema,
  onDepFailureSchema,
  signalNameSchema,
  wholeNumberSchema,
  workflowNameSchema,
} from './definition.js';
import { type Duration, isDuration, toMilliseconds } from './duration.js';
import { dotPathSchema, prioritySchema } from './flow-control.js';

/** The zod schemas that check the builder's options, strictly: a typo such as `maxAttempt` is reported. */
// ---------------------------------------------------------------------------------------------
// Option schemas: strict, so that a typo such as `maxAttempt` is reported rather than ignored.

export const MaxWaitMs = Number.MAX_SAFE_INTEGER;

export function durationSchema(minMs: number, maxMs: number, what: string) {
  return z.custom<Duration>(
    (value) => {
      if (!isDuration(value)) return false;
      const ms = toMilliseconds(value);
      return ms >= minMs && ms <= maxMs;
    },
    {
      error: expected(
        `expected ${what}: milliseconds or a string such as '500ms', '30s', '10m', '2h', '1d', from ${minMs}ms to ${maxMs}ms`,
      ),
    },
  );
}

export const backoffOptionsSchema = z
  .strictObject(
    {
      initial: durationSchema(0, MaxWaitMs, 'an initial delay').optional(),
      max: durationSchema(0, MaxWaitMs, 'a maximum delay').optional(),
      factor: numberSchema(1, 1000, 'a growth factor').optional(),
      jitter: numberSchema(0, 1, 'a jitter fraction').optional(),
    },
    { error: expected('expected backoff options { initial?, max?, factor?, jitter? }') },
  )
  .optional();

export const commonShape = {
  dependsOn: z
    .array(nodeNameSchema, { error: expected('expected an array of node names') })
    .optional(),
  onDepFailure: onDepFailureSchema.optional(),
};

export const handlerShape = {
  maxAttempts: wholeNumberSchema(1, MaxCount).optional(),
  timeout: durationSchema(1, MaxTimeoutMs, 'a timeout').optional(),
  backoff: backoffOptionsSchema,
  concurrencyKey: dotPathSchema.optional(),
  priority: prioritySchema.optional(),
};

export const maxWait = durationSchema(1, MaxWaitMs, 'a maximum wait').optional();

const cacheOptionsSchema = z.strictObject(
  {
    ttl: durationSchema(1, MaxWaitMs, 'a time to live'),
    key: dotPathSchema.optional(),
  },
  { error: expected('expected cache options { ttl, key? }') },
);

export function optionsOf<S extends z.core.$ZodLooseShape>(method: string, shape: S) {
  return z.strictObject(shape, { error: expected(`expected an options object for .${method}()`) });
}

export const optionSchemas = {
  task: optionsOf('task', {
    ...commonShape,
    ...handlerShape,
    cache: cacheOptionsSchema.optional(),
  }).optional(),
  fan_out: optionsOf('fanOut', {
    ...commonShape,
    ...handlerShape,
    from: nodeNameSchema,
    maxParallel: wholeNumberSchema(1, MaxCount).optional(),
    maxItems: wholeNumberSchema(1, MaxCount).optional(),
  }),
  wait_signal: optionsOf('waitSignal', { ...commonShape, signal: signalNameSchema, maxWait }),
  wait_any: optionsOf('waitAny', {
    ...commonShape,
    signals: nameListSchema('signal name', 1),
    maxWait,
  }),
  wait_n: optionsOf('waitN', {
    ...commonShape,
    signal: signalNameSchema,
    n: wholeNumberSchema(1, MaxCount),
    maxWait,
  }),
  wait_timer: optionsOf('waitTimer', {
    ...commonShape,
    waitFor: durationSchema(0, MaxWaitMs, 'a wait'),
  }),
  child: optionsOf('child', {
    ...commonShape,
    workflow: workflowNameSchema,
    result: nodeNameSchema.optional(),
    maxWait,
  }),
} as const;

export const workflowOptionsSchema = z
  .strictObject(
    {
      defaults: z
        .strictObject(
          {
            maxAttempts: wholeNumberSchema(1, MaxCount).optional(),
            timeout: durationSchema(1, MaxTimeoutMs, 'a timeout').optional(),
            backoff: backoffOptionsSchema,
          },
          { error: expected('expected defaults { maxAttempts?, timeout?, backoff? }') },
        )
        .optional(),
    },
    { error: expected('expected workflow options { defaults? }') },
  )
  .optional();
