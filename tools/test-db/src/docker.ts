/**
 * The second route: a throw-away PostgreSQL container started with testcontainers, used when a Docker
 * engine answers. testcontainers is imported only after a ping succeeded: without an engine it fails
 * slowly and with a message about "container runtime strategies" that helps nobody.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';

/** Where the Docker engine listens, as far as the environment tells. */
export type DockerEndpoint =
  | { readonly kind: 'socket'; readonly socketPath: string }
  | { readonly kind: 'http'; readonly url: string }
  | { readonly kind: 'other'; readonly dockerHost: string };

/** A running Postgres container. */
export interface ContainerServer {
  readonly url: string;
  readonly image: string;
  stop(): Promise<void>;
}

/**
 * The image used unless `CYCLONE_TEST_POSTGRES_IMAGE` names another one (PostgreSQL 13 or later):
 * `postgres:<major>-alpine` for the major version the run asks for, else this.
 */
export const defaultImage = 'postgres:17-alpine';

const defaultSocket = '/var/run/docker.sock';

/** The Docker endpoint from DOCKER_HOST or the default socket; `undefined` when there is none. */
export function findDockerEndpoint(
  env: NodeJS.ProcessEnv = process.env,
): DockerEndpoint | undefined {
  const dockerHost = env.DOCKER_HOST?.trim();
  if (dockerHost) {
    if (dockerHost.startsWith('unix://')) {
      return { kind: 'socket', socketPath: dockerHost.slice('unix://'.length) };
    }
    if (dockerHost.startsWith('tcp://') && env.DOCKER_TLS_VERIFY !== '1') {
      return { kind: 'http', url: `http://${dockerHost.slice('tcp://'.length)}` };
    }
    // TLS, ssh:// or npipe://: nothing simple to ping; testcontainers knows how to talk to them.
    return { kind: 'other', dockerHost };
  }
  return existsSync(defaultSocket) ? { kind: 'socket', socketPath: defaultSocket } : undefined;
}

/** Human-readable name of an endpoint, for the log line and error messages. */
export function describeEndpoint(endpoint: DockerEndpoint): string {
  switch (endpoint.kind) {
    case 'socket':
      return `unix://${endpoint.socketPath}`;
    case 'http':
      return endpoint.url;
    case 'other':
      return endpoint.dockerHost;
  }
}

/** Resolves when the engine answers `GET /_ping` with 200 within `timeoutMs`; rejects otherwise. */
export function pingDocker(endpoint: DockerEndpoint, timeoutMs = 2000): Promise<void> {
  if (endpoint.kind === 'other') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const options: http.RequestOptions =
      endpoint.kind === 'socket'
        ? { socketPath: endpoint.socketPath, path: '/_ping' }
        : { ...urlOptions(endpoint.url), path: '/_ping' };
    const request = http.get({ ...options, timeout: timeoutMs }, (response) => {
      response.resume();
      if (response.statusCode === 200) resolve();
      else reject(new Error(`Docker ping answered HTTP ${response.statusCode ?? '?'}`));
    });
    request.on('timeout', () =>
      request.destroy(new Error(`Docker ping timed out after ${timeoutMs} ms`)),
    );
    request.on('error', reject);
  });
}

function urlOptions(url: string): http.RequestOptions {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: parsed.port || 2375 };
}

/**
 * Starts a Postgres container; the image is `CYCLONE_TEST_POSTGRES_IMAGE`, else the official one
 * of `major`, else {@link defaultImage}.
 */
export async function startPostgresContainer(
  env: NodeJS.ProcessEnv = process.env,
  major?: number,
): Promise<ContainerServer> {
  const image =
    env.CYCLONE_TEST_POSTGRES_IMAGE?.trim() ||
    (major === undefined ? defaultImage : `postgres:${major}-alpine`);
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const container = await new PostgreSqlContainer(image)
    .withCommand([
      'postgres',
      ...[
        'fsync=off',
        'synchronous_commit=off',
        'full_page_writes=off',
        'max_connections=300',
      ].flatMap((setting) => ['-c', setting]),
    ])
    .start();
  return {
    url: container.getConnectionUri(),
    image,
    async stop() {
      await container.stop();
    },
  };
}
