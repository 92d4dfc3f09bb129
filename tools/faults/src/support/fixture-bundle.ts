/**
 * The fixture scripts, bundled once per test run into plain JavaScript. A scenario starts and kills
 * worker processes hundreds of times; under tsx each start costs over a second of CPU on a loaded
 * machine, a bundle about a third of that.
 *
 * The bundles go to `<repo>/node_modules/.cyclone-faults/src/migration/`: as deep below the
 * repository root as the store's `src/migration/migrate.ts`, in a folder `src`, so the store finds
 * the repository's `migrations/` exactly as it does when it runs from its sources.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../../../..');
const fixturesDir = path.resolve(here, '../fixtures');

/** Where the bundle of fixture `name` is. */
export function fixtureBundle(name: string): string {
  return path.join(repoRoot, 'node_modules', '.cyclone-faults', 'src', 'migration', `${name}.mjs`);
}

/** Bundles every entry script of `src/fixtures` (a file ending in `-process.ts`). */
export async function bundleFixtures(): Promise<void> {
  const entries = readdirSync(fixturesDir).filter((f) => f.endsWith('-process.ts'));
  await build({
    entryPoints: entries.map((f) => path.join(fixturesDir, f)),
    outdir: path.dirname(fixtureBundle('x')),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['@cyclone/source'],
    // Bundled CommonJS dependencies (pg) call require(); give the ES module one.
    banner: {
      js: "import { createRequire as cycloneFaultsRequire } from 'node:module'; const require = cycloneFaultsRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}
