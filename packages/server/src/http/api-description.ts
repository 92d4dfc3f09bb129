import { readFileSync } from 'node:fs';
import { OpenApiGeneratorV31, type OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

/** The OpenAPI document `GET /api/openapi.json` answers with. */
export type ApiDescription = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** The version in this package's package.json (two levels above both src/http/ and dist/http/). */
function packageVersion(): string {
  const manifest = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  ) as { version: string };
  return manifest.version;
}

/** The groups routes are listed under, in this order. */
const Tags = [
  { name: 'runs', description: 'Runs, their steps, events and explanations; submitting a run' },
  { name: 'run actions', description: "An operator's actions on a run, and signals" },
  { name: 'dlq', description: 'Discarded steps and their redrive' },
  { name: 'schedules', description: 'Cron schedules and their fires' },
  {
    name: 'overview',
    description: 'The whole system: queues by kind, workers, throughput and queue wait per minute',
  },
  { name: 'server', description: 'Health, metrics, the live stream, the session, this document' },
  { name: 'dashboard', description: 'The dashboard page and its files' },
];

/**
 * Builds the OpenAPI 3.1 document of every route in `registry`, with the server's two ways of
 * presenting its token. Security lists anonymous access too: a server started without a token
 * (on loopback) needs none.
 */
export function buildApiDescription(registry: OpenAPIRegistry): ApiDescription {
  registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description: 'The token (`--token`) or the read-only token (`--read-only-token`)',
  });
  registry.registerComponent('securitySchemes', 'basic', {
    type: 'http',
    scheme: 'basic',
    description: 'Any user name and a token as the password; reads only (a change needs Bearer)',
  });
  return new OpenApiGeneratorV31(registry.definitions, {
    sortComponents: 'alphabetically',
  }).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Cyclone HTTP API',
      version: packageVersion(),
      description:
        'Inspect and operate Cyclone runs, the DLQ and schedules. Times are ISO 8601 strings. ' +
        'Every error answers `{ error: { code, message } }`; a refused operator action answers ' +
        "409 with the rule's `reason`, a bad request 400 with `issues` naming each field.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    security: [{ bearer: [] }, { basic: [] }, {}],
    tags: Tags,
  });
}
