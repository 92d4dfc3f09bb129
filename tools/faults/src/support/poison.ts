/** Poison values: what JSON in Postgres cannot hold, or should not be asked to. */

/** An array nested `depth` deep: `[[[...]]]`. */
export function deeplyNested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** An object that contains itself. */
export function cyclic(): unknown {
  const value: Record<string, unknown> = { name: 'loop' };
  value.self = value;
  return value;
}

/** The poison payloads by name; each is built fresh. */
export const poisonPayloads: Record<string, () => unknown> = {
  nul: () => ({ text: 'a\u0000b' }),
  'lone-surrogate': () => ({ text: 'a\uD800b' }),
  'ten-megabytes': () => ({ text: 'x'.repeat(10 * 1024 * 1024) }),
  'nested-10000': () => ({ deep: deeplyNested(10_000) }),
  bigint: () => ({ n: 10n }),
  cycle: () => ({ c: cyclic() }),
};
