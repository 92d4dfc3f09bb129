import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

export default cycloneVitestConfig(import.meta.url);
