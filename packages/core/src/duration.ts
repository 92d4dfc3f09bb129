import { ValidationError } from './errors.js';

/**
 * A length of time: a number of milliseconds, or a string such as `'250ms'`, `'30s'`, `'10m'`,
 * `'2h'` or `'1d'`.
 */
export type Duration = number | `${number}${'ms' | 's' | 'm' | 'h' | 'd'}`;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION_PATTERN = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/**
 * Converts a {@link Duration} to whole milliseconds.
 *
 * @param where - where the value came from, named in the error (e.g. `nodes.charge.timeout`)
 * @throws ValidationError when the value is negative, not finite, or not of the form `<number><unit>`
 */
export function toMilliseconds(duration: Duration, where = 'duration'): number {
  if (typeof duration === 'number') {
    if (!Number.isFinite(duration) || duration < 0) {
      throw new ValidationError(where, [
        {
          path: where,
          message: `expected a non-negative finite number of milliseconds, got ${duration}`,
        },
      ]);
    }
    return Math.round(duration);
  }
  const match = DURATION_PATTERN.exec(String(duration).trim());
  if (!match) {
    throw new ValidationError(where, [
      {
        path: where,
        message: `expected a duration such as 500, '250ms', '30s', '10m', '2h' or '1d', got ${JSON.stringify(duration)}`,
      },
    ]);
  }
  const amount = Number(match[1]);
  const unit = match[2] as keyof typeof UNIT_MS;
  return Math.round(amount * UNIT_MS[unit]);
}

/** Whether a value is a well-formed {@link Duration}. */
export function isDuration(value: unknown): value is Duration {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0;
  return typeof value === 'string' && DURATION_PATTERN.test(value.trim());
}

/**
 * A distance in time as a short human string, its two largest units (`42s`, `3m10s`, `2h5m`,
 * `350ms`); the sign is dropped, so callers say "in" or "ago".
 */
export function shortDuration(ms: number): string {
  const abs = Math.abs(Math.round(ms));
  if (abs < 1000) return `${abs}ms`;
  const s = Math.floor(abs / 1000);
  const parts: [number, string][] = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor((s % 86_400) / 3600), 'h'],
    [Math.floor((s % 3600) / 60), 'm'],
    [s % 60, 's'],
  ];
  const first = parts.findIndex(([n]) => n > 0);
  return parts
    .slice(first, first + 2)
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join('');
}
