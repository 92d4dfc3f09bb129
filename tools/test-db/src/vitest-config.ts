/**
 * The vitest configuration every Cyclone package uses:
 *
 * ```ts
 * // packages/<name>/vitest.config.ts
 * import { cycloneVitestConfig } from '@cyclone/test-db/vitest';
 * export default cycloneVitestConfig(import.meta.url);                       // with Postgres
 * export default cycloneVitestConfig(import.meta.url, { database: false });  // pure unit tests
 * ```
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig, mergeConfig, type ViteUserConfig } from 'vitest/config';
import { repoRoot } from './paths.js';

/** Options of {@link cycloneVitestConfig}: vitest config to merge over the defaults, and `database`. */
export interface CycloneVitestOptions extends ViteUserConfig {
  /**
   * Whether the package's tests need PostgreSQL: starts the `@cyclone/test-db` global setup.
   * @defaultValue true
   */
  database?: boolean;
}

const globalSetup = fileURLToPath(new URL('./global-setup.ts', import.meta.url));

/**
 * Sibling packages resolve to their TypeScript sources through the `@cyclone/source` export
 * condition, so tests need no build; then the usual server conditions.
 */
const conditions = [
  '@cyclone/source',
  // Without `module`: vitest hands these conditions to the Node processes that run the tests, and
  // under `module` Node's own `require` picks a bundler-only ESM build (OpenTelemetry's, with
  // extensionless imports, loaded by prom-client) that Node cannot load. Tests resolve as Node does.
  ...defaultServerConditions.filter((condition) => condition !== 'module'),
];

/**
 * The vitest config of the package whose `vitest.config.ts` passes its `import.meta.url`.
 * Writes a JSON report to `<repo>/reports/vitest/<package folder>.json` (CI sums them). Other
 * options are merged over these, except `test.include`, which replaces the default.
 */
export function cycloneVitestConfig(
  importMetaUrl: string,
  options: CycloneVitestOptions = {},
): ViteUserConfig {
  const { database = true, ...overrides } = options;
  const packageDir = path.dirname(fileURLToPath(importMetaUrl));
  const packageName = path.basename(packageDir);
  const base = defineConfig({
    root: packageDir,
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      passWithNoTests: true,
      pool: 'forks',
      testTimeout: 30_000,
      hookTimeout: 60_000,
      teardownTimeout: 30_000,
      globalSetup: database ? [globalSetup] : [],
      reporters: ['default', 'json'],
      outputFile: { json: path.join(repoRoot, 'reports', 'vitest', `${packageName}.json`) },
    },
  });
  const merged = mergeConfig(base, overrides);
  // mergeConfig concatenates arrays: an `include` given replaces the default one instead, so a
  // suite that names its own files (the fault scenarios, the pooler suite) runs only those.
  const include = overrides.test?.include;
  return include ? { ...merged, test: { ...merged.test, include } } : merged;
}
