import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

// The quick bench brings its own server (CYCLONE_TEST_DATABASE_URL, else embedded Postgres) and
// runs every system's runners as child processes: no shared test database, a long timeout.
export default cycloneVitestConfig(import.meta.url, {
  database: false,
  test: { testTimeout: 240_000, hookTimeout: 120_000 },
});
