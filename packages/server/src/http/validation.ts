import { ValidationError, type ValidationIssue } from '@cyclone/core';
import type { z } from 'zod';

/** What part of a request a schema reads, named in the ValidationError's subject. */
export type RequestPart = 'body' | 'query' | 'path';

/** zod's issues as Cyclone's: the path joined with dots, so a client sees `options.maxReclaims`. */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

/**
 * Parses one part of a request with `schema`.
 *
 * @throws ValidationError naming each bad field; the route answers 400 with the issues
 */
export function parseRequest<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: RequestPart,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(`request ${part}`, toValidationIssues(result.error.issues));
}

/**
 * The JSON body of a request. An empty body is `undefined` (actions such as cancel take none);
 * text that is not JSON is a ValidationError on `body`, never a 500.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ValidationError('request body', [{ path: 'body', message: 'expected JSON' }]);
  }
}
