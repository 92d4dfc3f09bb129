import { z } from 'zod';
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { RefusalCodes, UnavailableCodes } from './http-errors.js';

/** The error statuses a route may answer, besides its own answers. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 500 | 503;

/** `{ error: { code, message, ...more } }` with `code` one of `codes`. */
function errorOf(codes: readonly string[], more: z.ZodRawShape = {}) {
  return z.object({
    error: z.object({
      code: z.enum(codes as [string, ...string[]]).meta({ description: 'A stable code' }),
      message: z.string().meta({ description: 'What happened, for a person' }),
      ...more,
    }),
  });
}

/**
 * The body of each error status (the shapes of http-errors.ts and the middleware's refusals).
 * The 409 codes are read from `RefusalCodes`, so a refusal added there is described here too.
 */
export const ErrorBodies: Readonly<Record<ErrorStatus, z.ZodType>> = {
  400: errorOf(['VALIDATION'], {
    issues: z
      .array(
        z.object({
          path: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).meta({
            description:
              "The field, its path joined with dots; a list of keys from the input's root " +
              "when a workflow's input schema refused it (`['items', 0, 'sku']`)",
          }),
          message: z.string(),
        }),
      )
      .meta({ description: 'Each bad field' }),
  }).meta({ id: 'ValidationFailed' }),
  401: errorOf(['UNAUTHORIZED']).meta({ id: 'Unauthorized' }),
  403: errorOf([
    'FORBIDDEN',
    'BEARER_REQUIRED',
    'HOST_NOT_ALLOWED',
    'CROSS_SITE',
    'FOREIGN_ORIGIN',
    'JSON_REQUIRED',
  ]).meta({ id: 'Forbidden' }),
  404: errorOf(['NOT_FOUND']).meta({ id: 'NotFound' }),
  409: errorOf(Object.keys(RefusalCodes), {
    reason: z
      .string()
      .meta({ description: "The rule's rejection reason: `terminal`, `invalid-entry`, ..." }),
  }).meta({ id: 'Refused' }),
  500: errorOf(['INTERNAL']).meta({ id: 'Internal' }),
  503: errorOf([...UnavailableCodes]).meta({ id: 'Unavailable' }),
};

const descriptions: Readonly<Record<ErrorStatus, string>> = {
  400: 'A parameter or the body is invalid; `issues` names each bad field',
  401: 'No valid token (a server started with one)',
  403: 'Refused before the route: a Host not this server, a change from another site or not JSON, or a token that may not do this',
  404: 'No such run, node, schedule, workflow or route',
  409: "An operator action the rules refuse; `reason` is the rule's reason, and nothing changed",
  500: 'An unexpected failure, logged by the server with its stack',
  503: 'The database cannot be reached or is not migrated; retry later',
};

/** The description's answer for each error status. */
export function errorResponses(statuses: Iterable<ErrorStatus>): Record<string, ResponseConfig> {
  const responses: Record<string, ResponseConfig> = {};
  for (const status of [...new Set(statuses)].sort()) {
    responses[status] = {
      description: descriptions[status],
      content: { 'application/json': { schema: ErrorBodies[status] } },
    };
  }
  return responses;
}
