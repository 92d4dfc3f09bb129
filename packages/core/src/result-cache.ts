/**
 * Result caching's pure rules: the key a cached task node looks its kind's cache up with. The
 * store computes it when the node becomes ready (its dependencies' outputs are known then) and
 * keeps it on the step, so the handler's output is stored under the key it was looked up with.
 *
 * @packageDocumentation
 */
import type { CacheDefinition } from './definition-types.js';
import { MaxConcurrencyKeyLength, valueAtPath } from './flow-control.js';
import { stableHash } from './stable-hash.js';

/** What a cache key is computed from. */
export interface CacheKeyInput {
  /** The task's kind: entries are kept per kind, and the default key hashes it too. */
  readonly kind: string;
  /** The node's cache settings. */
  readonly cache: Pick<CacheDefinition, 'key'>;
  /** The run input. */
  readonly input: unknown;
  /** The outputs of the node's dependencies, by node name. */
  readonly deps: Readonly<Record<string, unknown>>;
}

/**
 * The cache key of a ready task node, or null when the node is not cached this time.
 *
 * With a `key` path, the value at that path of the run input: a string as it is (a longer one than
 * {@link MaxConcurrencyKeyLength} by its hash), a number or a boolean as its JSON text, an object
 * or a list by its {@link stableHash}; null when the input lacks the field or holds null there.
 * Without one, the {@link stableHash} of `{ kind, input, deps }`, so the same work on the same
 * data finds the same entry, whatever the key order of the objects.
 */
export function cacheKeyOf({ kind, cache, input, deps }: CacheKeyInput): string | null {
  if (cache.key === undefined) return stableHash({ kind, input, deps });
  const value = valueAtPath(input, cache.key);
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    return value.length <= MaxConcurrencyKeyLength ? value : stableHash(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return stableHash(value);
}
