import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// The pooler suite (`npm run test:pooler`): the engine through PgBouncer in transaction mode
// (CYCLONE_TEST_POOLER_URL, see src/support/pooler.ts). One file at a time, like the scenarios;
// its report is reports/vitest/pooler.json, beside the fault suite's.
export default cycloneVitestConfig(import.meta.url, {
  test: {
    include: ['src/pooler/**/*.pooler.test.ts'],
    globalSetup: [fileURLToPath(new URL('./src/support/global-setup.ts', import.meta.url))],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    outputFile: { json: path.join(repoRoot, 'reports', 'vitest', 'pooler.json') },
  },
});
