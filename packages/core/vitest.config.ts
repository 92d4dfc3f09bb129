import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

// Core is pure: its tests need no database, so the Postgres global setup stays off. Type tests
// (`*.test-d.ts`) run in vitest's typecheck mode: a line marked `@ts-expect-error` that compiles
// fails the run.
export default cycloneVitestConfig(import.meta.url, {
  database: false,
  test: {
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
