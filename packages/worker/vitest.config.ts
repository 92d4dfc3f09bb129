import { cycloneVitestConfig } from '@cyclone/test-db/vitest';

// Type tests (`*.test-d.ts`) run in vitest's typecheck mode: a line marked `@ts-expect-error`
// that compiles fails the run.
export default cycloneVitestConfig(import.meta.url, {
  test: {
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
