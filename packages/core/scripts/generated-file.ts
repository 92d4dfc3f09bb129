/**
 * Writing a generated file, or checking that the committed one is current. Both generators in this
 * folder use it, so `npm run verify -w @cyclone/core` judges every generated file the same way.
 *
 * The text goes through Prettier with the repository's config for the target, so `prettier --check`
 * agrees with what a generator writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What to generate: the file, its text, and the command that regenerates it (named when stale). */
export interface GeneratedFile {
  /** Absolute path of the file. */
  readonly target: string;
  /** The file's text before formatting. */
  readonly text: string;
  /** The command to run when the committed file is stale, e.g. `npm run diagram -w @cyclone/core`. */
  readonly regenerate: string;
}

/**
 * Writes the file, or with `--check` on the command line exits 1 when the committed file differs
 * from what would be written.
 */
export async function writeOrCheck(file: GeneratedFile): Promise<void> {
  const name = relative(ROOT, file.target);
  const config = (await resolveConfig(file.target)) ?? {};
  const output = await format(file.text, { ...config, filepath: file.target });
  if (process.argv.includes('--check')) {
    let current: string | undefined;
    try {
      current = readFileSync(file.target, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== output) {
      console.error(`${name} is stale: run ${file.regenerate}`);
      process.exit(1);
    }
    console.log(`${name} is up to date`);
    return;
  }
  writeFileSync(file.target, output);
  console.log(`wrote ${name}`);
}
