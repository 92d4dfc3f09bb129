/**
 * Counts and lists in the docs that follow the code: the store's layers, the scheduler's scanners,
 * core's error codes, the store's tables (from the migrations) and source folders, and the files of
 * the life of a step. Each is read from the source here, so a layer, a scanner, an error code, a
 * table or a folder added without its line in the docs fails, and so does a file of the path
 * renamed or moved without the page.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { backquoted, tableStartingWith } from './markdown-tables.js';
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
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
  'twenty',
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

  it("names each file of 'The life of a step' once, each one there, as many as it says", () => {
    const start = page.indexOf('## The life of a step');
    expect(start).toBeGreaterThan(0);
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    const files = (text: string) => [...text.matchAll(/`([\w./-]+\.ts)`/g)].map((m) => m[1]!);
    // The numbered list is the path, its files named from `packages/`.
    const path = files(
      section
        .split('\n\n')
        .filter((p) => /^1\. /.test(p))
        .join('\n'),
    );
    expect(path.length).toBeGreaterThan(0);
    expect(path.filter((file, i) => path.indexOf(file) !== i)).toEqual([]);
    expect(path.filter((file) => !existsSync(inRepo(`packages/${file}`)))).toEqual([]);
    expect(section).toContain(`passes through these ${NUMBER_WORDS[path.length]} files`);
    // The paragraphs after it name files under `store-postgres/src/`, the first from `packages/`.
    const others = files(section.slice(section.indexOf('\nA failure takes')));
    expect(others.length).toBeGreaterThan(0);
    const missing = others.filter(
      (file) =>
        !existsSync(inRepo(`packages/${file}`)) &&
        !existsSync(inRepo(`packages/store-postgres/src/${file}`)),
    );
    expect(missing).toEqual([]);
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

describe("packages/store-postgres/README.md's tables and folders", () => {
  const readme = read('packages/store-postgres/README.md');

  it('lists every table the migrations create, and no other', () => {
    const migrations = readdirSync(inRepo('migrations'))
      .filter((file) => file.endsWith('.sql'))
      .map((file) => read(`migrations/${file}`))
      .join('\n');
    const created = new Set(
      [...migrations.matchAll(/CREATE TABLE "(cyclone_\w+)"(?! PARTITION OF)/g)].map((m) => m[1]!),
    );
    for (const [, dropped] of migrations.matchAll(/DROP TABLE (?:IF EXISTS )?"?(cyclone_\w+)/g))
      created.delete(dropped!);
    expect(created.size).toBeGreaterThan(10);
    const section = readme.slice(readme.indexOf('## Tables'));
    const documented = tableStartingWith(section, 'table', 'the Tables section')
      .rows.filter((row) => !row[0]!.includes('(a view)'))
      .flatMap((row) => backquoted(row[0]!));
    expect([...created].filter((table) => !documented.includes(table))).toEqual([]);
    expect(documented.filter((table) => !created.has(table))).toEqual([]);
  });

  it("names every folder of src/tables in the layers' table, and no other", () => {
    const folders = readdirSync(inRepo('packages/store-postgres/src/tables'), {
      withFileTypes: true,
    })
      .filter((entry) => entry.isDirectory() && entry.name !== 'transitions')
      .map((entry) => `${entry.name}/`);
    const layer = tableStartingWith(readme, 'layer', 'packages/store-postgres/README.md').rows.find(
      (row) => row[1]!.includes('tables/<table>/'),
    );
    const named = backquoted(layer![2]!);
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((folder) => !named.includes(folder))).toEqual([]);
    expect(named.filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it("names every folder of src in the layers' table, and no other", () => {
    const entries = readdirSync(inRepo('packages/store-postgres/src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() || /^[\w-]+\.ts$/.test(entry.name))
      .filter((entry) => !entry.name.endsWith('.test.ts'))
      .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
    const named = tableStartingWith(readme, 'layer', 'packages/store-postgres/README.md')
      .rows.flatMap((row) => backquoted(row[1]!))
      .map((name) => name.replace(/^tables\/.*$/, 'tables/'));
    expect(entries.filter((entry) => !named.includes(entry))).toEqual([]);
    expect([...new Set(named)].filter((entry) => !entries.includes(entry))).toEqual([]);
  });
});
