#!/usr/bin/env node
// Checks the package in the current directory as npm would publish it: packs it (without running
// its scripts: `verify` runs after `build`, and a prepack build here would race other tasks), then
// checks what the tarball holds, and runs publint and @arethetypeswrong/cli on it.
//
// Run by each published package's `lint:package` script (part of its `verify` target).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const pkgDir = process.cwd();
const pkg = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const problems = [];

// Metadata a registry page relies on. The project has no public repository or issue tracker of
// its own yet: a `repository`, `homepage` or `bugs` field would send users to someone else's
// project, so none is allowed until there is an address that belongs to this one.
if (pkg.license !== 'MIT') problems.push(`license is ${pkg.license}, expected MIT`);
for (const field of ['repository', 'homepage', 'bugs']) {
  if (pkg[field] !== undefined)
    problems.push(`${field} names an address that is not this project's`);
}
if (!Array.isArray(pkg.keywords) || pkg.keywords.length === 0) problems.push('no keywords');
if (!pkg.scripts?.prepack?.includes('build')) problems.push('no prepack script that builds');
for (const [name, range] of Object.entries(pkg.dependencies ?? {})) {
  // Exact pins of third-party libraries force duplicate copies into an app; ours move together.
  if (!name.startsWith('@cyclone/') && /^\d/.test(range) && !range.includes('-')) {
    problems.push(`dependency ${name} is pinned to ${range}: use a range`);
  }
}

const work = mkdtempSync(path.join(tmpdir(), 'cyclone-lint-package-'));
try {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: pkgDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const files = packed.files.map((file) => file.path);
  for (const required of ['package.json', 'README.md', 'LICENSE']) {
    if (!files.includes(required)) problems.push(`${required} is not in the tarball`);
  }
  if (!files.some((file) => file.startsWith('dist/'))) problems.push('dist/ is not in the tarball');
  for (const file of files) {
    // Maps would point at src/, which is not shipped; tests and snapshots serve this repository only.
    if (file.endsWith('.map')) problems.push(`${file}: source or declaration map shipped`);
    if (/\.test\.[cm]?[jt]s$|\.test\.d\.ts$/.test(file)) problems.push(`${file}: a test shipped`);
    if (file.startsWith('src/')) problems.push(`${file}: a source file shipped`);
    if (/_snapshot\.json$/.test(file)) problems.push(`${file}: a drizzle-kit snapshot shipped`);
  }
  if (pkg.files?.includes('migrations')) {
    const journal = files.includes('migrations/meta/_journal.json');
    if (!journal) problems.push('migrations/meta/_journal.json is not in the tarball');
    else {
      const { entries } = JSON.parse(
        readFileSync(path.join(pkgDir, 'migrations/meta/_journal.json'), 'utf8'),
      );
      for (const { tag } of entries) {
        if (!files.includes(`migrations/${tag}.sql`))
          problems.push(`migrations/${tag}.sql missing`);
      }
    }
  }

  const run = (label, command, args) => {
    try {
      execFileSync(command, args, { cwd: pkgDir, stdio: 'inherit' });
    } catch {
      problems.push(`${label} failed (see above)`);
    }
  };
  run('publint', bin('publint'), ['--strict']);
  // The packages are ESM; `require()` of them works on the Node versions they support (>= 20.19,
  // require(esm)), which attw's node16 model predates; the pack test requires them for real.
  // `node10` resolution (no `exports` support) cannot reach subpaths such as `./schema`, and no
  // supported Node or TypeScript setup for ESM packages uses it: the node16 profile leaves it out.
  run('attw', bin('attw'), [
    path.join(work, packed.filename),
    '--profile',
    'node16',
    '--ignore-rules',
    'cjs-resolves-to-esm',
    '--format',
    'table-flipped',
  ]);
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (problems.length > 0) {
  console.error(`${pkg.name}: package problems:\n  - ${problems.join('\n  - ')}`);
  process.exitCode = 1;
} else {
  console.log(`${pkg.name}: the packed package is complete and its exports resolve`);
}
