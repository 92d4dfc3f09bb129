/**
 * docs/comparison.md quotes the benchmark's figures from docs/performance.md: every row of its
 * performance table must be a row of performance.md's "Today's figures", cell for cell, so the two
 * pages cannot tell a reader different numbers.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tableStartingWith } from './markdown-tables.js';
import { inRepo } from './support.js';

const performance = readFileSync(inRepo('docs/performance.md'), 'utf8');
const comparison = readFileSync(inRepo('docs/comparison.md'), 'utf8');

describe('the benchmark figures of the docs', () => {
  const today = tableStartingWith(performance, 'measure', 'docs/performance.md');
  const quoted = tableStartingWith(
    comparison.slice(comparison.indexOf('## Performance')),
    'measure',
    'docs/comparison.md',
  );

  it('compares the same runs', () => {
    expect(quoted.header).toEqual(today.header);
  });

  it('quotes in comparison.md only rows of performance.md, unchanged', () => {
    expect(quoted.rows.length).toBeGreaterThan(3);
    const rows = new Set(today.rows.map((row) => JSON.stringify(row)));
    expect(quoted.rows.filter((row) => !rows.has(JSON.stringify(row)))).toEqual([]);
  });
});
