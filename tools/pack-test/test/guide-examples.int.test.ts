/**
 * The task guides (docs/guides/*.md) quote the programs in examples/guides/: a block after a
 * `<!-- examples/guides/<file> -->` marker must equal the file, every program is quoted by a
 * guide, and every program runs to its end against a new database, printing what its guide says
 * it prints. The programs assert their own claims too (`node:assert`), so a claim that stops
 * holding makes the program exit non-zero and fails here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanEnv,
  createEmptyDatabase,
  type EmptyDatabase,
  inRepo,
  repoRoot,
  run,
} from './support.js';

const guides = readdirSync(inRepo('docs/guides'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => `docs/guides/${file}`);
const programs = readdirSync(inRepo('examples/guides'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `examples/guides/${file}`);
const marker = /^<!-- (examples\/guides\/[\w.-]+) -->\n\n```ts\n([\s\S]*?)^```$/gm;

function quotes(guide: string): { file: string; text: string }[] {
  return [...readFileSync(inRepo(guide), 'utf8').matchAll(marker)].map((match) => ({
    file: match[1]!,
    text: match[2]!,
  }));
}

/** What each program prints, as its guide shows it. */
const prints: Record<string, readonly RegExp[]> = {
  'examples/guides/enqueueing.ts': [
    /^sent to ada@example\.com, bob@example\.com, cy@example\.com$/m,
    /^job output \{ 'audit\.log': \{ logged: true \} \}$/m,
  ],
  'examples/guides/retries.ts': [
    /^acme synced at attempt 3 after 4 calls$/m,
    /^gone: permanent no such account$/m,
  ],
  'examples/guides/cancellation.ts': [/^short run: completed$/m, /^slow run: running available$/m],
  'examples/guides/schedules.ts': [/^fired: submitted$/m, /^backfilled: 3 created, 0 skipped$/m],
  'examples/guides/flow-control.ts': [/^started in order: vip /m],
};

describe('the guides quote their programs', () => {
  it('finds guides and programs', () => {
    expect(guides.length).toBeGreaterThan(4);
    expect(programs.length).toBeGreaterThan(4);
  });

  for (const guide of guides) {
    it(`${guide}: each quoted block equals its file`, () => {
      for (const { file, text } of quotes(guide)) {
        expect(existsSync(inRepo(file)), `${guide} quotes ${file}, which does not exist`).toBe(
          true,
        );
        expect(text, `${guide}: the block quoting ${file}`).toBe(
          readFileSync(inRepo(file), 'utf8'),
        );
      }
    });
  }

  it('quotes every program somewhere, and each says what it prints', () => {
    const quoted = new Set(guides.flatMap((guide) => quotes(guide).map(({ file }) => file)));
    expect(programs.filter((file) => !quoted.has(file))).toEqual([]);
    expect(programs.filter((file) => prints[file] === undefined)).toEqual([]);
  });
});

describe("the guides' programs", () => {
  let database: EmptyDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  for (const file of programs) {
    it(`${file} runs to its end on a new database`, async () => {
      database = await createEmptyDatabase();
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
        cwd: repoRoot,
        env: cleanEnv({ CYCLONE_DATABASE_URL: database.url }),
        timeoutMs: 120_000,
      });
      for (const pattern of prints[file] ?? []) expect(stdout).toMatch(pattern);
    });
  }
});
