/**
 * docs/configuration.md against the CLI: every flag of every command, as the parser built from the
 * command catalogue accepts it, and every `CYCLONE_*` variable the code reads, must be on the page,
 * and the page documents no flag, command or variable the code lacks. A flag the parser requires
 * must be marked "(required)" there.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parsedCommands } from './support/command-tree.js';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const page = readFileSync(path.join(repoRoot, 'docs/configuration.md'), 'utf8');

/** The rows of the page's table whose header starts with `firstColumn`, as cells. */
function tableRows(firstColumn: string): string[][] {
  const lines = page.split('\n');
  const header = lines.findIndex((line) => new RegExp(`^\\|\\s*${firstColumn}\\s*\\|`).test(line));
  if (header < 0) throw new Error(`docs/configuration.md has no table headed "${firstColumn}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    );
  }
  return rows;
}

/** The long flags in a cell, in order: `` `--to T` (required) `` gives `--to`. */
function flagsIn(cell: string): string[] {
  return [...cell.matchAll(/`(--[a-z][a-z-]*)/g)].map((match) => match[1]!);
}

/** The flags a cell marks "(required)": the text after the flag, up to the next one, says so. */
function requiredIn(cell: string): string[] {
  const parts = cell.split(/(?=`--[a-z])/);
  return parts
    .filter((part) => /^`--[a-z]/.test(part) && /\(required/.test(part))
    .map((part) => /^`(--[a-z][a-z-]*)/.exec(part)![1]!);
}

/** Every command as typed (`cyclone runs list`), with its flags. */
function commands() {
  return parsedCommands().map((command) => ({ ...command, name: `cyclone ${command.words}` }));
}

describe('docs/configuration.md, the CLI flags', () => {
  const leaves = commands();
  const common = tableRows('flag').flatMap(([flag]) => flagsIn(flag ?? ''));
  const perCommand = new Map(
    tableRows('command').map(([command, flags]) => [
      /`([^`]+)`/.exec(command ?? '')?.[1] ?? command ?? '',
      flags ?? '',
    ]),
  );

  it('finds the commands', () => {
    expect(leaves.map((leaf) => leaf.name)).toContain('cyclone schedules backfill');
    expect(common).toContain('--database-url');
  });

  it('lists the flags every command that talks to the database takes, and no other', () => {
    const shared = leaves
      .filter((leaf) => leaf.flags.includes('--database-url'))
      .map((leaf) => leaf.flags);
    const everywhere = shared[0]!.filter((flag) => shared.every((flags) => flags.includes(flag)));
    expect([...common].sort()).toEqual([...everywhere].sort());
  });

  it("lists each command's own flags, and no other", () => {
    const missing: string[] = [];
    const unknown: string[] = [];
    for (const leaf of leaves) {
      const own = leaf.flags.filter((flag) => !common.includes(flag));
      const cell = perCommand.get(leaf.name);
      const documented = cell === undefined ? [] : flagsIn(cell);
      for (const flag of own) if (!documented.includes(flag)) missing.push(`${leaf.name} ${flag}`);
      for (const flag of documented)
        if (!leaf.flags.includes(flag)) unknown.push(`${leaf.name} ${flag}`);
    }
    const names = leaves.map((leaf) => leaf.name);
    for (const command of perCommand.keys())
      if (!names.includes(command)) unknown.push(`${command} (no such command)`);
    expect(missing, 'flags missing from docs/configuration.md').toEqual([]);
    expect(unknown, 'flags in docs/configuration.md the CLI lacks').toEqual([]);
  });

  it('marks every required flag "(required)"', () => {
    const unmarked = leaves.flatMap((leaf) =>
      leaf.required
        .filter((flag) => !requiredIn(perCommand.get(leaf.name) ?? '').includes(flag))
        .map((flag) => `${leaf.name} ${flag}`),
    );
    expect(leaves.some((leaf) => leaf.required.length > 0)).toBe(true);
    expect(unmarked).toEqual([]);
  });
});

/** The `.ts` files under `dir`, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'node_modules' ? [] : sources(full);
    return entry.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(entry) ? [full] : [];
  });
}

/**
 * The `CYCLONE_*` variables read (`env.NAME`, `env['NAME']`) by the packages' sources and the
 * test database's helpers, comment lines left out (TSDoc examples name variables they do not read).
 */
function variablesRead(): string[] {
  const dirs = [
    ...readdirSync(path.join(repoRoot, 'packages')).map((p) => path.join('packages', p, 'src')),
    'tools/test-db/src',
  ];
  const found = new Set<string>();
  for (const dir of dirs) {
    const full = path.join(repoRoot, dir);
    if (!statSync(full, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const file of sources(full)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (/^\s*(\*|\/\/|\/\*)/.test(line)) continue;
        for (const match of line.matchAll(/\benv(?:\.|\[')(CYCLONE_[A-Z_]+)/g))
          found.add(match[1]!);
      }
    }
  }
  return [...found].sort();
}

describe('docs/configuration.md, the environment variables', () => {
  it('lists every CYCLONE_* variable the code reads, and no other', () => {
    const read = variablesRead();
    expect(read).toContain('CYCLONE_DATABASE_URL');
    const documented = tableRows('variable')
      .map(([variable]) => /`([^`]+)`/.exec(variable ?? '')?.[1] ?? '')
      .filter((name) => name.startsWith('CYCLONE_'))
      .sort();
    expect(
      read.filter((name) => !documented.includes(name)),
      'read, not documented',
    ).toEqual([]);
    expect(
      documented.filter((name) => !read.includes(name)),
      'documented, not read',
    ).toEqual([]);
  });
});
