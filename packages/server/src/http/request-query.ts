import type { Context } from 'hono';

/**
 * A request's query string as an object for a schema: each parameter's last value, except the
 * `repeatable` ones, which keep all their values as an array (`?state=failed&state=paused`).
 */
export function queryObject(
  c: Context,
  repeatable: readonly string[] = [],
): Record<string, string | string[]> {
  const all = c.req.queries();
  const query: Record<string, string | string[]> = {};
  for (const [name, values] of Object.entries(all)) {
    query[name] = repeatable.includes(name) ? values : values[values.length - 1]!;
  }
  return query;
}
