/**
 * Counts and lists in the docs that follow the code: the store's layers, the scheduler's scanners
 * and core's error codes. Each is read from the source here, so a layer, a scanner or an error code
 * added without its line in the docs fails.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inRepo } from './support.js';

const NUMBER_WORDS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
];

const read = (file: string) => readFileSync(inRepo(file), 'utf8');

describe('docs/architecture.md', () => {
  const page = read('docs/architecture.md');

  it('counts the layers its chart of the store draws', () => {
    const layers = page.match(/^\s+\w+\["\d+\. /gm) ?? [];
    expect(layers.length).toBeGreaterThan(0);
    expect(page).toContain(
      `\`packages/store-postgres/src\` is built in ${NUMBER_WORDS[layers.length]} layers.`,
    );
  });

  it('counts the scheduler scanners there are', () => {
    const scanners = readdirSync(inRepo('packages/scheduler/src/scanners')).filter(
      (file) =>
        file.endsWith('.ts') &&
        /\breadonly name = '/.test(read(`packages/scheduler/src/scanners/${file}`)),
    );
    expect(scanners.length).toBeGreaterThan(0);
    expect(page).toContain(`beside the ${NUMBER_WORDS[scanners.length]} there are:`);
  });
});

describe("packages/core/README.md's errors", () => {
  it('lists every code core declares', () => {
    const source = read('packages/core/src/errors.ts');
    const codes = [...source.matchAll(/\breadonly code = '([A-Z_]+)'/g)].map((m) => m[1]!);
    expect(codes).toContain('VALIDATION');
    const readme = read('packages/core/README.md');
    const errors = readme.slice(readme.indexOf('## Errors'));
    expect(codes.filter((code) => !errors.includes(`\`${code}\``))).toEqual([]);
  });
});
