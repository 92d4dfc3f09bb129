import { z } from 'zod';
import { isDuration, toMilliseconds, ValidationError, type Duration } from '@cyclone/core';
import { OperatorControls } from './operator-controls.js';
import { parseKind } from './options.js';

/** A kind's concurrency cap: at most `max` of its steps run at once, on every worker together. */
export interface ConcurrencyLimitOptions {
  /** The handler kind. */
  readonly kind: string;
  /** Most steps of the kind running at once (per concurrency key with `perKey`): 1 or more. */
  readonly max: number;
  /**
   * Count per concurrency key (the steps' `concurrencyKey`); steps without a key form one group.
   * @defaultValue false
   */
  readonly perKey?: boolean;
}

/** A kind's rate limit: at most `limit` of its steps start within any `period`. */
export interface RateLimitOptions {
  readonly kind: string;
  /** Most starts within any `period` (per concurrency key with `perKey`): 1 or more. */
  readonly limit: number;
  /** The sliding window: milliseconds, or a duration such as `'2s'` or `'1m'`. */
  readonly period: Duration;
  /** @defaultValue false */
  readonly perKey?: boolean;
}

/** A kind's concurrency cap with what it holds now. */
export interface ConcurrencyLimit {
  readonly kind: string;
  readonly max: number;
  readonly perKey: boolean;
  /** Steps of the kind running now. */
  readonly running: number;
  /** Claimable steps of the kind the cap holds back now (labelled `AwaitingResource`). */
  readonly waiting: number;
}

/** A kind's rate limit, with its period as it was given. */
export interface RateLimit {
  readonly kind: string;
  readonly limit: number;
  readonly period: Duration;
  readonly perKey: boolean;
}

/** Longest rate-limit period: 30 days. */
export const MaxRatePeriodMs = 30 * 24 * 3_600_000;

/** Largest concurrency cap (`max`). */
export const MaxConcurrencyLimit = 1_000_000;

/** Largest rate limit (`limit`). */
export const MaxRateLimit = 1_000_000_000;

const positive = (what: string, max: number) =>
  z.custom<number>((v) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= max, {
    message: `expected ${what}: a whole number from 1 to ${max}`,
  });
const period = z.custom<Duration>(
  (v) => isDuration(v) && toMilliseconds(v) >= 1 && toMilliseconds(v) <= MaxRatePeriodMs,
  {
    message: `expected a period: milliseconds or a duration such as '500ms', '2s', '1m', '1h', from 1 ms to 30 days`,
  },
);
const perKey = z.boolean({ message: 'expected true or false' }).optional();
const concurrencySchema = z
  .object({ kind: z.unknown(), max: positive('a maximum', MaxConcurrencyLimit), perKey })
  .strict();
const rateSchema = z
  .object({ kind: z.unknown(), limit: positive('a limit', MaxRateLimit), period, perKey })
  .strict();

/** Validates options against `schema`; a ValidationError about `subject` lists what is wrong. */
export function parseOptions<T>(schema: z.ZodType<T>, value: unknown, subject: string): T {
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

/**
 * The flow-limit side of the {@link Client}: concurrency caps and rate limits of handler kinds,
 * stored in the database and obeyed by every worker on every machine (decisions 250-259: caps are
 * counted where steps are claimed). Setting, raising or removing a limit wakes the kind's
 * workers. Every input is validated before anything is written.
 */
export abstract class LimitControls extends OperatorControls {
  /**
   * Creates or replaces a kind's concurrency cap (its rate limit stays).
   * @throws ValidationError naming `kind`, `max` or `perKey`; nothing is written
   */
  async setConcurrencyLimit(options: ConcurrencyLimitOptions): Promise<void> {
    const o = parseOptions(concurrencySchema, options, 'concurrency limit');
    await this.store.setConcurrencyLimit({
      kind: parseKind(o.kind),
      max: o.max,
      perKey: o.perKey ?? false,
    });
  }

  /** Removes a kind's concurrency cap; false when it had none. @throws ValidationError for a bad kind */
  async removeConcurrencyLimit(kind: string): Promise<boolean> {
    return this.store.removeLimit(parseKind(kind), 'concurrency');
  }

  /** Every concurrency cap, by kind, with the kind's running and held-back steps. */
  async listConcurrencyLimits(): Promise<ConcurrencyLimit[]> {
    const limits = await this.store.listLimits();
    return limits.flatMap((l) =>
      l.concurrency === null
        ? []
        : [
            {
              kind: l.kind,
              max: l.concurrency.max,
              perKey: l.concurrency.perKey,
              running: l.running,
              waiting: l.waiting,
            },
          ],
    );
  }

  /**
   * Creates or replaces a kind's rate limit (its concurrency cap stays): at most `limit` starts in
   * any interval of length `period` (a sliding window).
   * @throws ValidationError naming `kind`, `limit`, `period` or `perKey`; nothing is written
   */
  async setRateLimit(options: RateLimitOptions): Promise<void> {
    const o = parseOptions(rateSchema, options, 'rate limit');
    await this.store.setRateLimit({
      kind: parseKind(o.kind),
      limit: o.limit,
      periodMs: toMilliseconds(o.period, 'period'),
      period: String(o.period),
      perKey: o.perKey ?? false,
    });
  }

  /** Removes a kind's rate limit; false when it had none. @throws ValidationError for a bad kind */
  async removeRateLimit(kind: string): Promise<boolean> {
    return this.store.removeLimit(parseKind(kind), 'rate');
  }

  /** Every rate limit, by kind, with its period as it was given. */
  async listRateLimits(): Promise<RateLimit[]> {
    const limits = await this.store.listLimits();
    return limits.flatMap((l) =>
      l.rate === null
        ? []
        : [
            {
              kind: l.kind,
              limit: l.rate.limit,
              // Milliseconds were given as a number and are listed as one.
              period: /^\d+$/.test(l.rate.period)
                ? Number(l.rate.period)
                : (l.rate.period as Duration),
              perKey: l.rate.perKey,
            },
          ],
    );
  }
}
