import type {
  ConcurrencyLimitSetting,
  KindLimits,
  RateLimitSetting,
} from '../contract/limit-store.js';
import type { SqlRunner } from '../db/sql-runner.js';
import { listLimits as listLimitRows } from '../tables/limits/list-limits.js';
import { removeLimit as removeLimitRow } from '../tables/limits/remove-limit.js';
import { setConcurrencyLimit as setConcurrencyRow } from '../tables/limits/set-concurrency-limit.js';
import { setRateLimit as setRateRow } from '../tables/limits/set-rate-limit.js';

/** Most claimable steps of a kind the list counts as held back. */
const WaitingCountLimit = 100_000;

/** Sets a kind's concurrency cap. */
export function setConcurrencyLimit(db: SqlRunner, limit: ConcurrencyLimitSetting): Promise<void> {
  return setConcurrencyRow(db, limit);
}

/** Sets a kind's rate limit. */
export function setRateLimit(db: SqlRunner, limit: RateLimitSetting): Promise<void> {
  return setRateRow(db, limit);
}

/** Removes a kind's concurrency cap or rate limit; false when it had none. */
export function removeLimit(
  db: SqlRunner,
  kind: string,
  which: 'concurrency' | 'rate',
): Promise<boolean> {
  return removeLimitRow(db, { kind, concurrency: which === 'concurrency' });
}

/** Every limited kind with its limits, running steps and held-back steps. */
export async function listLimits(db: SqlRunner): Promise<KindLimits[]> {
  const rows = await listLimitRows(db, { countLimit: WaitingCountLimit });
  return rows.map((r) => ({
    kind: r.kind,
    concurrency:
      r.concurrency_max === null ? null : { max: r.concurrency_max, perKey: r.concurrency_per_key },
    rate:
      r.rate_limit === null
        ? null
        : {
            limit: r.rate_limit,
            periodMs: Number(r.rate_period_ms),
            period: r.rate_period ?? String(r.rate_period_ms),
            perKey: r.rate_per_key,
          },
    running: r.running,
    waiting: r.waiting,
  }));
}
