/**
 * docs/troubleshooting.md lists every error code Cyclone raises, with its meaning and remedy. The
 * codes are read from the published packages' sources, where they are declared: `readonly code =
 * 'X'` on an error class, `code: 'X'` in an error body or a warning, and the code argument of the
 * server's refusals and the CLI's `RefusedError`. A code added to the code but not to the page
 * fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inRepo, publishedPackages } from './support.js';

const code = String.raw`'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)'`;
const declarations = [
  // `readonly code = 'X'` and `code: 'X'` (also `readonly code = 'X',` as a parameter default)
  new RegExp(String.raw`\bcode\s*[:=]\s*` + code, 'g'),
  // errorBody('X', ...) and refuse(c, logger, 'X', ...)
  new RegExp(String.raw`\berrorBody\(\s*` + code, 'g'),
  new RegExp(String.raw`\brefuse\(\s*\w+,\s*[\w.]+,\s*` + code, 'g'),
  // new RefusedError(message, 'X'): the code as the call's last argument, on a line of its own
  new RegExp(String.raw`^\s*` + code + String.raw`,?\n\s*\);`, 'gm'),
];

/** The non-test TypeScript sources of a folder, recursively. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(folder, entry.name);
    if (entry.isDirectory()) return sources(at);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [at] : [];
  });
}

function declaredCodes(): Map<string, string> {
  const found = new Map<string, string>();
  for (const folder of [...publishedPackages, 'dev-db']) {
    for (const file of sources(inRepo(`packages/${folder}/src`))) {
      const text = readFileSync(file, 'utf8');
      for (const pattern of declarations) {
        for (const match of text.matchAll(pattern)) {
          if (!found.has(match[1]!)) found.set(match[1]!, path.relative(inRepo('.'), file));
        }
      }
    }
  }
  return found;
}

describe('docs/troubleshooting.md', () => {
  const page = readFileSync(inRepo('docs/troubleshooting.md'), 'utf8');
  const codes = declaredCodes();

  it('finds the codes where they are declared', () => {
    // A guard on the patterns: codes of each package and of each way of declaring one.
    for (const known of ['VALIDATION', 'WORKER_START', 'HOST_NOT_ALLOWED', 'DEV_DB_MISSING']) {
      expect(codes.has(known), known).toBe(true);
    }
  });

  it('lists every error code the packages declare', () => {
    const missing = [...codes]
      .filter(([name]) => !page.includes(`\`${name}\``))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });
});
