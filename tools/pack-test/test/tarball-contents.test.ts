/**
 * What `npm pack` puts in each published package's tarball: only what a user of the package
 * needs (its built code and types, its command, migrations, dashboard files, README, LICENSE),
 * never a merge leftover, a test, a fixture or a source file. The list comes from
 * `npm pack --dry-run`, which applies the `files` field and the ignore rules as a real pack does;
 * scripts are skipped, so nothing is built here (the built `dist/` is listed when it exists).
 */
import { describe, expect, it } from 'vitest';
import { cleanEnv, publishedPackages, repoRoot, run } from './support.js';

/** Paths a tarball may hold, relative to the package's root. */
const allowed = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^CHANGELOG\.md$/,
  /^dist\/.+\.(js|cjs|mjs|d\.ts|d\.cts|d\.mts|js\.map|d\.ts\.map)$/,
  /^bin\/[\w-]+\.js$/,
  /^migrations\/\d{4}_\w+\.sql$/,
  /^migrations\/meta\/[\w-]+\.json$/,
  /^dashboard\/[\w-]+\.(html|js|css)$/,
];

/** What must never ship, wherever it is: named here so a failure says what it found. */
const forbidden = [
  /\.(orig|rej|bak|swp)$/,
  /(^|\/)(test|tests|__tests__|fixtures?)\//,
  /\.(test|spec)\.[cm]?[jt]s$/,
  /\.tsbuildinfo$/,
  /(^|\/)src\//,
];

interface Packed {
  readonly name: string;
  readonly files: readonly { readonly path: string }[];
}

describe('the published tarballs', async () => {
  const { stdout } = await run(
    'npm',
    [
      'pack',
      '--dry-run',
      '--json',
      '--ignore-scripts',
      ...[...publishedPackages, 'dev-db'].flatMap((folder) => ['-w', `packages/${folder}`]),
    ],
    { cwd: repoRoot, env: cleanEnv() },
  );
  const packs = JSON.parse(stdout) as Packed[];

  it('lists every published package', () => {
    expect(packs.map((pack) => pack.name).sort()).toEqual(
      [...publishedPackages, 'dev-db'].map((folder) => `@cyclone/${folder}`).sort(),
    );
  });

  for (const folder of [...publishedPackages, 'dev-db']) {
    it(`@cyclone/${folder} holds only what a user needs`, () => {
      const pack = packs.find((candidate) => candidate.name === `@cyclone/${folder}`)!;
      const paths = pack.files.map((file) => file.path);
      expect(paths).toContain('package.json');
      expect(paths).toContain('README.md');
      expect(paths.filter((file) => forbidden.some((pattern) => pattern.test(file)))).toEqual([]);
      expect(paths.filter((file) => !allowed.some((pattern) => pattern.test(file)))).toEqual([]);
    });
  }

  it('ships the dashboard as its page, style sheet and script modules', () => {
    const server = packs.find((pack) => pack.name === '@cyclone/server')!;
    const dashboard = server.files
      .map((file) => file.path)
      .filter((file) => file.startsWith('dashboard/'));
    expect(dashboard).toEqual(
      expect.arrayContaining(['dashboard/index.html', 'dashboard/app.js', 'dashboard/style.css']),
    );
  });
});
