/** Small value helpers of the workflow builder: durations, compact objects, snapshots of options. */
import { type Duration, toMilliseconds } from './duration.js';

/** Milliseconds of an optional duration. */
export function ms(duration: Duration | undefined): number | undefined {
  return duration === undefined ? undefined : toMilliseconds(duration);
}

/** Drops `undefined` fields, so that the built object equals its JSON round trip. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A copy of plain objects and arrays (other values are kept as they are, for validation to report). */
export function snapshot(value: unknown, depth = 0): unknown {
  if (depth > 8 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => snapshot(item, depth + 1));
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, snapshot(v, depth + 1)]));
}
