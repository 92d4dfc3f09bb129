import { z } from 'zod';
import { expected } from './definition-messages.js';

/**
 * Flow control's pure rules: which strings are dot paths into a run input, which value a path
 * names, and which numbers are priorities. The concurrency caps and rate limits themselves are
 * enforced where steps are claimed, in the store.
 *
 * @packageDocumentation
 */

/** Longest dot path (`customer.id`) a concurrency key or a cache key may name. */
export const MaxDotPathLength = 256;

const DotPath = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

/**
 * Whether `value` is a dot path: names of object fields (or array positions) separated by dots,
 * each of letters, digits, `_`, `$` or `-` (`customerId`, `order.customer.id`, `items.0`).
 */
export function isDotPath(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MaxDotPathLength && DotPath.test(value);
}

/** The zod schema of a dot path. @internal */
export const dotPathSchema = z.custom<string>((value) => isDotPath(value), {
  error: expected(
    `expected a dot path into the run input (field names of letters, digits, _ $ - joined by dots, such as 'customer.id'), at most ${MaxDotPathLength} characters`,
  ),
});

/** The zod schema of a priority: any safe integer. @internal */
export const prioritySchema = z.custom<number>((value) => Number.isSafeInteger(value), {
  error: expected('expected a priority: a safe integer (higher is claimed first; default 0)'),
});

/** Longest concurrency key, in characters. */
export const MaxConcurrencyKeyLength = 512;

/** The zod schema of a concurrency key given at submit or enqueue. @internal */
export const concurrencyKeySchema = z.custom<string>(
  (value) =>
    typeof value === 'string' && value.length >= 1 && value.length <= MaxConcurrencyKeyLength,
  {
    error: expected(
      `expected a concurrency key: a string of 1 to ${MaxConcurrencyKeyLength} characters`,
    ),
  },
);

/** The value at a dot path of a JSON value, or undefined when a field on the way is missing. */
export function valueAtPath(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const field of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, field)) return undefined;
    current = (current as Record<string, unknown>)[field];
  }
  return current;
}

/**
 * The key a dot path gives a step from its run input: a string as it is, a number or a boolean as
 * its JSON text; null when the input lacks the field, or it holds null, an object or a list
 * (decision 251): such a step has no key and joins the steps without one.
 */
export function keyAtPath(input: unknown, path: string): string | null {
  const value = valueAtPath(input, path);
  if (typeof value === 'string') return value.length <= MaxConcurrencyKeyLength ? value : null;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return null;
}
