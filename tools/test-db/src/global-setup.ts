/**
 * Vitest global setup: resolves one PostgreSQL server for the whole test run (see `server.ts`),
 * creates a template database with the repo's migrations applied, and provides both to the test
 * files. Each test file then clones the template (`createTestDatabase` / `useTestDatabase`).
 *
 * Teardown drops the template, any clone a test file left behind and the run's roles, and stops
 * a server it started.
 */
import type { TestProject } from 'vitest/node';
import { createTemplate, dropRunDatabases, dropStaleDatabases, serverVersion } from './admin.js';
import { newRunTag, templatePrefix } from './names.js';
import { migrationsFolder } from './paths.js';
import { providedKey } from './provided.js';
import { dropRunRoles, dropStaleRoles } from './roles.js';
import { resolveServer } from './server.js';
import { minimumMajorVersion, requestedMajor } from './versions.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const startedAt = performance.now();
  const requested = requestedMajor();
  const server = await resolveServer(process.env, requested);
  const runTag = newRunTag();
  const templateDatabase = `${templatePrefix}${runTag}`;
  try {
    const { major, text: version } = await serverVersion(server.url);
    if (major < minimumMajorVersion) {
      throw new Error(
        `the test server runs PostgreSQL ${version}; the harness needs ${minimumMajorVersion} or later`,
      );
    }
    if (requested !== undefined && major !== requested) {
      throw new Error(
        `CYCLONE_TEST_POSTGRES_VERSION asks for PostgreSQL ${requested}, but ` +
          `${server.description} runs ${version}: unset one of the two, or make them agree`,
      );
    }
    await dropStaleDatabases(server.url);
    await dropStaleRoles(server.url);
    const { migrated } = await createTemplate(server.url, templateDatabase, migrationsFolder);
    project.provide(providedKey, {
      serverUrl: server.url,
      templateDatabase,
      runTag,
      route: server.route,
      migrated,
    });
    const ms = Math.round(performance.now() - startedAt);
    console.log(
      `[test-db] PostgreSQL ${version} from ${server.description}; template ${templateDatabase} ` +
        `(${migrated ? 'migrated' : 'no migrations yet'}), ready in ${ms} ms`,
    );
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }

  return async function teardown() {
    try {
      await dropRunDatabases(server.url, runTag);
      await dropRunRoles(server.url, runTag);
    } finally {
      await server.stop();
    }
  };
}
