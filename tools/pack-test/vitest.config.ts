import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

export default cycloneVitestConfig(import.meta.url, {
  test: {
    // Each file builds, packs or installs: one at a time, so they do not starve each other of the
    // machine's cores, with timeouts sized for a loaded machine.
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 900_000,
  },
});
