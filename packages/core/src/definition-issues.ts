import { z } from 'zod';
import { nearestName } from './definition-graph.js';
import { type ValidationIssue } from './errors.js';
import { joinPath } from './json-payload.js';

// ---------------------------------------------------------------------------------------------
// Zod issues to Cyclone issues.

/**
 * Converts zod issues to {@link ValidationIssue}s under `base`; an unknown key becomes one issue per
 * key, with a "did you mean" hint drawn from the keys `schema` accepts there.
 *
 * @param noun - what a key is called in messages: `option` for the builder, `field` for stored JSON
 * @internal
 */
export function issuesFromZod(
  error: z.ZodError,
  base: string,
  schema: z.ZodType,
  noun: 'option' | 'field',
): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    const path = joinPath(base, ...issue.path);
    if (issue.code !== 'unrecognized_keys') return [{ path, message: issue.message }];
    const known = keysAt(schema, issue.path);
    return issue.keys.map((key) => {
      const nearest = nearestName(key, known);
      const hint = nearest === undefined ? '' : ` (did you mean "${nearest}"?)`;
      return {
        path: joinPath(path, key),
        message: `unknown ${noun} "${key}"${hint}, expected one of: ${known.join(', ')}`,
      };
    });
  });
}

/** The keys an object schema accepts at `path`, looking through optional and array wrappers. */
export function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const segment of [...path, undefined]) {
    while (current instanceof z.ZodOptional) current = current.unwrap();
    if (segment === undefined) break;
    if (current instanceof z.ZodObject)
      current = (current.shape as Record<string, unknown>)[String(segment)];
    else if (current instanceof z.ZodArray) current = current.element;
    else return [];
  }
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}
