import { z } from 'zod';
import { isDuration, ValidationError, type Duration } from '@cyclone/core';
import type { Queryable } from '@cyclone/store-postgres';

const duration = z.custom<Duration>((v) => isDuration(v), {
  message: "expected a duration such as 500, '250ms', '30s', '10m', '2h' or '1d'",
});
const queryable = z.custom<Queryable>(
  (v) =>
    typeof v === 'object' && v !== null && typeof (v as { query?: unknown }).query === 'function',
  { message: 'expected a pg client (or pool) with a query() method' },
);

/** Options every submission accepts. */
export interface RunOptions {
  /** Stop the run (steps discarded with kind `deadline`, run failed) once this much time has passed. */
  readonly runDeadline?: Duration;
  /** A step whose lease expires after this many reclaims is discarded (`reclaim_limit`). */
  readonly maxReclaims?: number;
  /** A second submission with the same key returns the first run instead of creating another. */
  readonly idempotencyKey?: string;
  /** Insert inside the caller's own transaction (a client with `BEGIN` issued). */
  readonly tx?: Queryable;
}

/** Options of `submit` and `submitMany`. */
export type SubmitOptions = RunOptions;

/** Options of `enqueue` and `enqueueMany`. */
export interface EnqueueOptions extends RunOptions {
  /**
   * Attempts before the job is discarded.
   * @defaultValue 3
   */
  readonly maxAttempts?: number;
  /** Not claimable before this time (a Date) or this delay (a duration from now). */
  readonly scheduledAt?: Date | Duration;
  /** The handler's per-attempt timeout (retryable when it fires). */
  readonly timeout?: Duration;
}

const runOptionsShape = {
  runDeadline: duration.optional(),
  maxReclaims: z.number().int().min(0).optional(),
  idempotencyKey: z.string().min(1).max(512).optional(),
  tx: queryable.optional(),
};

const submitOptionsSchema = z.object(runOptionsShape).strict();
const enqueueOptionsSchema = z
  .object({
    ...runOptionsShape,
    maxAttempts: z.number().int().min(1).max(1_000_000).optional(),
    scheduledAt: z.union([z.date(), duration]).optional(),
    timeout: duration.optional(),
  })
  .strict();

const kindSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'expected 1 to 128 letters, digits, or _ . : -');

function parse<T>(schema: z.ZodType<T>, value: unknown, subject: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  throw new ValidationError(
    subject,
    result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || '(options)',
      message: issue.message,
    })),
  );
}

/** Validates the options of `submit` at the boundary. */
export function parseSubmitOptions(value: unknown): SubmitOptions {
  return parse(submitOptionsSchema, value, 'submit options');
}

/** Validates the options of `enqueue` at the boundary. */
export function parseEnqueueOptions(value: unknown): EnqueueOptions {
  return parse(enqueueOptionsSchema, value, 'enqueue options');
}

/** Validates a handler kind. */
export function parseKind(value: unknown): string {
  const result = kindSchema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError('job kind', [
    {
      path: 'kind',
      message: `${result.error.issues[0]?.message ?? 'invalid'}, got ${JSON.stringify(value)}`,
    },
  ]);
}
