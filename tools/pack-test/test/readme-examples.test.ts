/**
 * The READMEs and the pages of docs/ quote the programs in examples/: a block that follows a
 * `<!-- examples/<file> -->` marker must equal that file, so that what a reader copies is what the
 * example tests ran. Every example is quoted somewhere.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inRepo, publishedPackages } from './support.js';

const readmes = [
  'README.md',
  ...publishedPackages.map((folder) => `packages/${folder}/README.md`),
  ...readdirSync(inRepo('docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
];
const marker = /^<!-- (examples\/[\w.-]+) -->\n\n```ts\n([\s\S]*?)^```$/gm;

function quotes(readme: string): { file: string; text: string }[] {
  return [...readFileSync(inRepo(readme), 'utf8').matchAll(marker)].map((match) => ({
    file: match[1]!,
    text: match[2]!,
  }));
}

describe('the READMEs quote the examples', () => {
  for (const readme of readmes) {
    it(`${readme}: each quoted block equals its file`, () => {
      for (const { file, text } of quotes(readme)) {
        expect(existsSync(inRepo(file)), `${readme} quotes ${file}, which does not exist`).toBe(
          true,
        );
        expect(text, `${readme}: the block quoting ${file}`).toBe(
          readFileSync(inRepo(file), 'utf8'),
        );
      }
    });
  }

  it('quotes every example somewhere', () => {
    const quoted = new Set(readmes.flatMap((readme) => quotes(readme).map(({ file }) => file)));
    const examples = readdirSync(inRepo('examples'))
      .filter((file) => file.endsWith('.ts'))
      .map((file) => `examples/${file}`);
    expect(examples.filter((file) => !quoted.has(file))).toEqual([]);
  });

  it('reads the database URL from CYCLONE_DATABASE_URL in every example', () => {
    for (const readme of readmes) {
      const text = readFileSync(inRepo(readme), 'utf8');
      expect(text, readme).not.toMatch(/process\.env\.DATABASE_URL!/);
    }
  });
});
