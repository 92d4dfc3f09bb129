/**
 * What users copy never casts what Cyclone types for them: a handler's `ctx.input`, `ctx.deps` and
 * `ctx.item`, and a run's result. `handlersFor` and a definition's `input` and `output` declare
 * those types; a cast in an example teaches readers to skip them, and hides a drift between the
 * example and the API that the type-check would otherwise catch. The programs in examples/ and
 * every TypeScript block of the READMEs and docs/ are read, line by line.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inRepo } from './support.js';

/** A line of code and where it is, as `file:line`. */
interface CodeLine {
  readonly at: string;
  readonly text: string;
}

/**
 * The casts refused, each with what it catches. `as const` and a cast of anything else (a server's
 * address, a parsed JSON file) are left alone.
 */
const casts: readonly { readonly what: string; readonly pattern: RegExp }[] = [
  {
    what: 'a cast of ctx.input, ctx.deps or ctx.item',
    pattern: /\bctx\.(?:input|deps|item)\b(?:\[[^\]]*\]|\.[\w$]+)*\)?\s+as\s+(?!const\b)/,
  },
  {
    what: 'a cast of a run result',
    pattern: /\.result\([^;]*\)\)?\s+as\s+(?!const\b)/,
  },
  {
    what: 'a cast of a handler value passed on (input, deps, item, result, output, payload)',
    pattern:
      /\b(?:input|deps|item|result|output|payload)\b(?:\[[^\]]*\]|\.[\w$]+)*\)?\s+as\s+(?!const\b)/,
  },
  {
    what: 'a value cast inside parentheses, `(x as T)`',
    pattern: /\(\s*[\w$.]+(?:\[[^\]]*\])*\s+as\s+(?!const\b)[^)]*\)/,
  },
  {
    what: 'an angle-bracket cast of ctx',
    pattern: /<[^<>]+>\s*ctx\./,
  },
];

const markdownFiles = [
  'README.md',
  ...readdirSync(inRepo('docs'))
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`),
  ...readdirSync(inRepo('packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}/README.md`)
    .filter((file) => existsSync(inRepo(file))),
];

const exampleFiles = readdirSync(inRepo('examples'))
  .filter((file) => file.endsWith('.ts'))
  .map((file) => `examples/${file}`);

/** The lines of a markdown file's TypeScript and JavaScript blocks, with their line numbers. */
function codeBlockLines(file: string, text: string): CodeLine[] {
  const lines: CodeLine[] = [];
  // The open block's fence, and whether it holds TypeScript or JavaScript; null between blocks.
  let block: { fence: string; code: boolean } | null = null;
  text.split('\n').forEach((line, i) => {
    const fence = /^\s*(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (block === null) {
      if (fence) block = { fence: fence[1]!, code: codeLanguages.has(fence[2]!) };
    } else if (line.trim() === block.fence) {
      block = null;
    } else if (block.code) {
      lines.push({ at: `${file}:${i + 1}`, text: line });
    }
  });
  return lines;
}

const codeLanguages = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'mjs']);

/** Each refused cast in `lines`, as `file:line: what: the line`. */
function castsIn(lines: readonly CodeLine[]): string[] {
  const found: string[] = [];
  for (const { at, text } of lines) {
    const code = text.replace(/\/\/.*$/, '');
    const cast = casts.find(({ pattern }) => pattern.test(code));
    if (cast) found.push(`${at}: ${cast.what}: ${text.trim()}`);
  }
  return found;
}

describe('what users copy casts nothing Cyclone types', () => {
  it('finds the casts it refuses (the patterns match what they name)', () => {
    const lines = [
      'const { orderId } = ctx.input as { orderId: string };',
      "const load = ctx.deps['load'] as Order;",
      "'orders.items': async (ctx) => (ctx.deps['load'] as Order).items,",
      'const value = ctx.item as string;',
      "const result = (await client.result(runId, { timeout: '30s' })) as {",
      'return { boxes: (boxes as unknown[]).length };',
      'const { orderId } = input as { orderId: string };',
      'const order = <Order>ctx.deps.load;',
    ].map((text, i) => ({ at: `sample:${i + 1}`, text }));
    expect(castsIn(lines)).toHaveLength(lines.length);
    const allowed = [
      "const sizes = ['s', 'm'] as const;",
      'const { port } = server.address() as AddressInfo;',
      'load: (ctx) => loadOrder(ctx.input.orderId),',
      '// ctx.input as the workflow input: a comment is not code',
    ].map((text, i) => ({ at: `allowed:${i + 1}`, text }));
    expect(castsIn(allowed)).toEqual([]);
  });

  it('in the programs of examples/', () => {
    const lines = exampleFiles.flatMap((file) =>
      readFileSync(inRepo(file), 'utf8')
        .split('\n')
        .map((text, i) => ({ at: `${file}:${i + 1}`, text })),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(castsIn(lines)).toEqual([]);
  });

  it('in the TypeScript blocks of the READMEs and docs/', () => {
    const lines = markdownFiles.flatMap((file) =>
      codeBlockLines(file, readFileSync(inRepo(file), 'utf8')),
    );
    expect(lines.some(({ at }) => at.startsWith('README.md:'))).toBe(true);
    expect(castsIn(lines)).toEqual([]);
  });
});
