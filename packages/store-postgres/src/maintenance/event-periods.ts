/**
 * The arithmetic of event periods: run ids are UUIDs version 7, whose first 48 bits are the
 * milliseconds of their creation, so the smallest UUID of a millisecond bounds a period of runs.
 */

/** The smallest UUID whose first 48 bits are `ms`: every run id made at or after `ms` sorts above. */
export function periodBound(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms >= 2 ** 48) {
    throw new RangeError(`periodBound: expected a millisecond time below 2^48, got ${ms}`);
  }
  const hex = ms.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/** The milliseconds a UUID version 7 was made at (its first 48 bits). */
export function boundTime(uuid: string): number {
  return parseInt(uuid.replaceAll('-', '').slice(0, 12), 16);
}

/** A period partition's bounds, in milliseconds, `[from, to)`. */
export interface PeriodBounds {
  readonly from: number;
  readonly to: number;
}

const RANGE = /^FOR VALUES FROM \('([0-9a-f-]{36})'\) TO \('([0-9a-f-]{36})'\)$/;

/**
 * The bounds of a partition as Postgres prints them (`pg_get_expr` of its `relpartbound`), or
 * undefined for a bound that is not a closed range of UUIDs (the default partition, or one that
 * starts at `MINVALUE`).
 */
export function parsePeriodBounds(bound: string): PeriodBounds | undefined {
  const match = RANGE.exec(bound.trim());
  if (!match) return undefined;
  return { from: boundTime(match[1]!), to: boundTime(match[2]!) };
}

/** The upper bound of a range that starts at `MINVALUE`, or undefined for any other bound. */
export function parseInitialBound(bound: string): number | undefined {
  const match = /^FOR VALUES FROM \(MINVALUE\) TO \('([0-9a-f-]{36})'\)$/.exec(bound.trim());
  return match ? boundTime(match[1]!) : undefined;
}

/** The name of the partition of the period starting at `fromMs`: `cyclone_events_p20261207_000000`. */
export function periodPartitionName(fromMs: number): string {
  const iso = new Date(fromMs).toISOString(); // 2026-12-07T00:00:00.000Z
  const day = iso.slice(0, 10).replaceAll('-', '');
  const time = iso.slice(11, 19).replaceAll(':', '');
  return `cyclone_events_p${day}_${time}`;
}
