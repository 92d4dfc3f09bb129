import { fileURLToPath } from 'node:url';
import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

// One scenario file at a time: each starts worker processes and injects faults with timing of its
// own, and the machine running CI is small. Scenarios run for tens of seconds.
export default cycloneVitestConfig(import.meta.url, {
  test: {
    include: ['src/scenarios/**/*.fault.test.ts'],
    globalSetup: [fileURLToPath(new URL('./src/support/global-setup.ts', import.meta.url))],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 60_000,
  },
});
