// Fails when the Drizzle schema and the committed migrations disagree: drizzle-kit generates
// into a copy of migrations/, and any new or changed file there is drift.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const committed = path.resolve(pkg, '../../migrations');
const work = mkdtempSync(path.join(tmpdir(), 'cyclone-migrations-'));
const copy = path.join(work, 'migrations');
cpSync(committed, copy, { recursive: true });
const config = path.join(pkg, `.drizzle-check-${process.pid}.config.mjs`);
writeFileSync(
  config,
  `export default ${JSON.stringify({ dialect: 'postgresql', schema: './src/schema/index.ts', out: path.relative(pkg, copy), strict: true })};\n`,
);
const list = (dir) => readdirSync(dir, { recursive: true }).map(String).sort();
try {
  // drizzle-kit can report a failure and still exit 0: require its all-clear or a new file.
  const report = execFileSync('npx', ['drizzle-kit', 'generate', `--config=${config}`], {
    cwd: pkg,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '--conditions=@cyclone/source' },
  });
  if (!/No schema changes|migration file/.test(report)) {
    throw new Error(`drizzle-kit generate did not report its result:\n${report}`);
  }
  const before = list(committed);
  const after = list(copy);
  const changed = after.filter(
    (file) =>
      !before.includes(file) ||
      ((file.endsWith('.sql') || file.endsWith('.json')) &&
        readFileSync(path.join(copy, file), 'utf8') !==
          readFileSync(path.join(committed, file), 'utf8')),
  );
  if (changed.length > 0) {
    console.error(
      `migrations/ is out of date with the Drizzle schema (${changed.join(', ')}).\n` +
        'Run `npm run db:generate -w @cyclone/store-postgres -- --name <what-changed>` and commit the result.',
    );
    process.exitCode = 1;
  } else {
    console.log('migrations/ matches the Drizzle schema');
  }
} finally {
  rmSync(config, { force: true });
  rmSync(work, { recursive: true, force: true });
}
