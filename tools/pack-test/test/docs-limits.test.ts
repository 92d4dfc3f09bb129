/**
 * docs/limits.md against the code: each row names the constant that holds its rule, and the value
 * it states must be that constant's. The constants are read from the packages' sources (`export
 * const Name = <number expression>`, or a name pattern's `{1,N}`), so a value changed in the code
 * without its line on the page fails here, as does a row naming a constant that no longer exists.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { backquoted, markdownTables } from './markdown-tables.js';
import { inRepo } from './support.js';

/** The `.ts` files under `dir`, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sources(full);
    return entry.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(entry) ? [full] : [];
  });
}

/** A numeric constant's value: digits (with `_`) joined by `*` or `+`, nothing else evaluated. */
function evaluate(expression: string): number | undefined {
  const terms = expression.replaceAll('_', '').split(/\s*\+\s*/);
  if (!terms.every((term) => /^\d+(\s*\*\s*\d+)*$/.test(term))) return undefined;
  return terms
    .map((term) => term.split(/\s*\*\s*/).reduce((product, factor) => product * Number(factor), 1))
    .reduce((sum, term) => sum + term, 0);
}

/** Every exported numeric constant of the packages' sources, by name. */
function constants(): Map<string, number> {
  const found = new Map<string, number>();
  for (const pkg of readdirSync(inRepo('packages'))) {
    const src = inRepo(`packages/${pkg}/src`);
    if (!statSync(src, { throwIfNoEntry: false })?.isDirectory()) continue;
    for (const file of sources(src)) {
      const text = readFileSync(file, 'utf8');
      for (const [, name, expression] of text.matchAll(/^export const (\w+) = ([^;\n]+);/gm)) {
        const pattern = /^\/\^\[[^\]]+\]\{1,(\d+)\}\$\/$/.exec(expression!.trim());
        const value = pattern ? Number(pattern[1]) : evaluate(expression!.trim());
        if (value !== undefined) found.set(name!, value);
      }
    }
  }
  return found;
}

describe('docs/limits.md', () => {
  const rows = markdownTables(readFileSync(inRepo('docs/limits.md'), 'utf8'))
    .filter((table) => table.header[0] === 'rule')
    .flatMap((table) => table.rows);
  const code = constants();

  it('has rules', () => {
    expect(rows.length).toBeGreaterThan(20);
    expect(code.get('MaxChildDepth')).toBe(32);
  });

  it("states each rule's value as its constant holds it", () => {
    const wrong = rows.flatMap(([rule, value, constant]) => {
      const [name] = backquoted(constant ?? '');
      const held = name === undefined ? undefined : code.get(name);
      const stated = Number(/^[\d,]+/.exec(value ?? '')?.[0]?.replaceAll(',', '') ?? NaN);
      return held === stated ? [] : [`${rule}: states ${value}, ${name ?? '(none)'} is ${held}`];
    });
    expect(wrong).toEqual([]);
  });
});
