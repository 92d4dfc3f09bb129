/** A kind's concurrency cap, as set. */
export interface ConcurrencyLimitSetting {
  readonly kind: string;
  /** Most steps of the kind running at once (per concurrency key with `perKey`). */
  readonly max: number;
  readonly perKey: boolean;
}

/** A kind's rate limit, as set. */
export interface RateLimitSetting {
  readonly kind: string;
  /** Most starts of steps of the kind within any `period` (per concurrency key with `perKey`). */
  readonly limit: number;
  readonly periodMs: number;
  /** The period as it was given (`'2s'`, `'1m'`, or milliseconds as text), listed as given. */
  readonly period: string;
  readonly perKey: boolean;
}

/** A limited kind: its limits and what they hold now. */
export interface KindLimits {
  readonly kind: string;
  readonly concurrency: { readonly max: number; readonly perKey: boolean } | null;
  readonly rate: {
    readonly limit: number;
    readonly periodMs: number;
    readonly period: string;
    readonly perKey: boolean;
  } | null;
  /** Steps of the kind running now. */
  readonly running: number;
  /** Claimable steps of the kind that its concurrency cap holds back now. */
  readonly waiting: number;
}

/**
 * Flow limits of handler kinds, stored in the database and obeyed by every worker: set, removed
 * and listed. Setting or removing one wakes the kind's workers.
 */
export interface LimitCommands {
  /** Creates or replaces a kind's concurrency cap (its rate limit stays). */
  setConcurrencyLimit(limit: ConcurrencyLimitSetting): Promise<void>;
  /** Creates or replaces a kind's rate limit (its concurrency cap stays). */
  setRateLimit(limit: RateLimitSetting): Promise<void>;
  /** Removes a kind's concurrency cap or rate limit; false when it had none. */
  removeLimit(kind: string, which: 'concurrency' | 'rate'): Promise<boolean>;
  /** Every limited kind, by kind, with its running and held-back steps. */
  listLimits(): Promise<KindLimits[]>;
}
