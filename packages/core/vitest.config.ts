import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

// Core is pure: its tests need no database, so the Postgres global setup stays off.
export default cycloneVitestConfig(import.meta.url, { database: false });
