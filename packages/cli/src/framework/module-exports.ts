import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from './cli-error.js';

/**
 * Imports the module a flag names (`--handlers`, `--workflows`: a path, relative to the working
 * directory) and gives its exports: the named ones, over the same names on a default export.
 *
 * @throws UsageError naming the flag when there is no module at the path
 */
export async function importModuleExports(
  flag: string,
  specifier: string,
): Promise<Record<string, unknown>> {
  const file = path.resolve(specifier);
  if (!existsSync(file)) throw new UsageError(`${flag}: no module at ${file}`);
  const loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  return { ...(asRecord(loaded.default) ?? {}), ...loaded };
}

/** A plain object's entries, or undefined for anything else (an array, a function, null). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
