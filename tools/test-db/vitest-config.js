// The Node entry of `@cyclone/test-db/vitest`.
//
// Vite bundles a package's vitest.config.ts but leaves its package imports to Node, and Node 20
// cannot load TypeScript. This file loads the TypeScript source through tsx instead, so that every
// vitest.config.ts can `import { cycloneVitestConfig } from '@cyclone/test-db/vitest'` with no build
// step. TypeScript resolves the same import to src/vitest-config.ts (the `@cyclone/source` condition).
import { tsImport } from 'tsx/esm/api';

/** @type {typeof import('./src/vitest-config.ts')} */
const source = await tsImport('./src/vitest-config.ts', import.meta.url);

export const cycloneVitestConfig = source.cycloneVitestConfig;
