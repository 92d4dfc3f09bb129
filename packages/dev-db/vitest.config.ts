import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// The siblings' settings (see @cyclone/test-db's cycloneVitestConfig), written out here because
// @cyclone/test-db depends on this package: importing it back would make a dependency cycle.
// These tests start their own servers, so no global setup.
const packageDir = path.dirname(fileURLToPath(import.meta.url));
const conditions = ['@cyclone/source', ...defaultServerConditions];

export default defineConfig({
  root: packageDir,
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    passWithNoTests: true,
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', 'json'],
    outputFile: { json: path.join(packageDir, '..', '..', 'reports', 'vitest', 'dev-db.json') },
  },
});
