/**
 * Vitest global setup: resolves one PostgreSQL server for the whole test run (see `server.ts`),
 * creates a template database with the repo's migrations applied, and provides both to the test
 * files. Each test file then clones the template (`createTestDatabase` / `useTestDatabase`).
 *
 * Teardown drops the template and any clone a test file left behind, and stops a server it started.
 */
import type { TestProject } from 'vitest/node';
import {
  createTemplate,
  dropRunDatabases,
  dropStaleDatabases,
  serverMajorVersion,
} from './admin.js';
import { newRunTag, templatePrefix } from './names.js';
import { migrationsFolder } from './paths.js';
import { providedKey } from './provided.js';
import { resolveServer } from './server.js';

/** Lowest PostgreSQL major version the harness supports (`DROP DATABASE ... WITH (FORCE)`). */
const minimumMajorVersion = 13;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const startedAt = performance.now();
  const server = await resolveServer();
  const runTag = newRunTag();
  const templateDatabase = `${templatePrefix}${runTag}`;
  try {
    const major = await serverMajorVersion(server.url);
    if (major < minimumMajorVersion) {
      throw new Error(
        `the test server runs PostgreSQL ${major}; the harness needs ${minimumMajorVersion} or later`,
      );
    }
    await dropStaleDatabases(server.url);
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
      `[test-db] PostgreSQL ${major} from ${server.description}; template ${templateDatabase} ` +
        `(${migrated ? 'migrated' : 'no migrations yet'}), ready in ${ms} ms`,
    );
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }

  return async function teardown() {
    try {
      await dropRunDatabases(server.url, runTag);
    } finally {
      await server.stop();
    }
  };
}
