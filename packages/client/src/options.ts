import { z } from 'zod';
import {
  assertTextValue,
  encodePayload,
  isDuration,
  MaxConcurrencyKeyLength,
  NamePattern,
  textValue,
  ValidationError,
  type Duration,
} from '@cyclone/core';
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
  /**
   * A step whose lease expires after this many reclaims is discarded (`reclaim_limit`), so a step
   * that crashes its worker every time ends in the DLQ. A reclaim is an expired lease: a worker
   * that died, was killed, or stalled past its lease.
   * @defaultValue `DefaultMaxReclaims` (10)
   */
  readonly maxReclaims?: number;
  /**
   * A second submission with the same key returns the first run instead of creating another. A
   * non-empty string of at most {@link MaxIdempotencyKeyLength} characters, without U+0000 or lone
   * surrogates (Postgres text cannot hold the first, and the driver turns the second into U+FFFD,
   * which would make different keys collide).
   */
  readonly idempotencyKey?: string;
  /** Insert inside the caller's own transaction (a client with `BEGIN` issued). */
  readonly tx?: Queryable;
  /**
   * The concurrency key of the run's steps whose node names no `concurrencyKey` path (a job's
   * step): what a per-key concurrency cap or rate limit of their kind counts by. A string of 1 to
   * `MaxConcurrencyKeyLength` (512) characters.
   * @defaultValue no key: such steps form one group of their own
   */
  readonly concurrencyKey?: string;
  /**
   * The priority of the run's steps whose node sets none (a job's step): among claimable steps of
   * a kind, a higher priority is claimed first, then the oldest. Any safe integer.
   * @defaultValue 0
   */
  readonly priority?: number;
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

// Names in definitions are at most 128 characters (NamePattern); a lookup may be given anything,
// and anything well-formed is simply not found, but an unbounded string is not worth sending.
const MaxLookupNameLength = 1024;

/** The longest idempotency key, in Unicode characters. */
export const MaxIdempotencyKeyLength = 512;

const runOptionsShape = {
  runDeadline: duration.optional(),
  maxReclaims: z.number().int().min(0).optional(),
  idempotencyKey: textValue('an idempotency key', {
    maxLength: MaxIdempotencyKeyLength,
  }).optional(),
  tx: queryable.optional(),
  concurrencyKey: textValue('a concurrency key', { maxLength: MaxConcurrencyKeyLength }).optional(),
  priority: z
    .custom<number>((v) => Number.isSafeInteger(v), {
      message: 'expected a priority: a safe integer (higher is claimed first; default 0)',
    })
    .optional(),
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

// Well-formed text first (so U+0000 or a lone surrogate is named as such), then the name pattern
// every kind in a workflow definition follows.
const kindSchema = textValue('a handler kind', { maxLength: 128 }).regex(NamePattern, {
  error: (issue) =>
    `expected 1 to 128 letters, digits, or _ . : -, got ${JSON.stringify(issue.input)}`,
});

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

/**
 * Validates a workflow or node name given to a read, so that a name Postgres text
 * cannot hold is refused as bad input rather than failing in the query.
 */
export function parseLookupName(value: unknown, subject: string, path: string): string {
  return assertTextValue(value, subject, path, { maxLength: MaxLookupNameLength });
}

/** Validates a handler kind. */
export function parseKind(value: unknown): string {
  const result = kindSchema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError('job kind', [
    {
      path: 'kind',
      message: result.error.issues[0]?.message ?? 'invalid',
    },
  ]);
}

/** Options of `client.signal`. */
export interface SignalOptions {
  /**
   * The signal's id: the same id sent twice to a run is delivered once (a retrying sender may send
   * again safely). Well-formed text of at most {@link MaxSignalIdLength} characters.
   */
  readonly id?: string;
}

/** The longest signal id, in Unicode characters. */
export const MaxSignalIdLength = 512;

// The same rules as a signal name in a workflow definition: well-formed text, then the pattern.
const signalNameSchema = textValue('a signal name', { maxLength: 128 }).regex(NamePattern, {
  error: (issue) =>
    `expected 1 to 128 letters, digits, or _ . : -, got ${JSON.stringify(issue.input)}`,
});
const signalOptionsSchema = z
  .object({ id: textValue('a signal id', { maxLength: MaxSignalIdLength }).optional() })
  .strict();

/**
 * Validates a signal at the boundary: its name (the signal-name rules of definitions), its options
 * and its payload (stored as JSON, at most `maxBytes`); returns what the store delivers.
 */
export function parseSignal(
  name: unknown,
  payload: unknown,
  options: unknown,
  maxBytes: number,
): { name: string; payloadJson: string; signalId: string | null } {
  const named = signalNameSchema.safeParse(name);
  if (!named.success) {
    throw new ValidationError('signal', [
      { path: 'name', message: named.error.issues[0]?.message ?? 'invalid' },
    ]);
  }
  const opts = parse(signalOptionsSchema, options, 'signal options');
  const payloadJson = encodePayload(payload === undefined ? null : payload, {
    maxBytes,
    subject: 'signal payload',
    path: 'payload',
  });
  return { name: named.data, payloadJson, signalId: opts.id ?? null };
}
