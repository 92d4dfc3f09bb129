/**
 * docs/security.md's table of what the token allows to change against the routes the server
 * serves: every route that is not a read must be in it, and it names no route the server lacks.
 * A route cell lists `METHOD /path` and then, for routes beside it, only their last segment
 * (`` `POST /api/runs/:id/cancel`, `retry` `` is also `POST /api/runs/:id/retry`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Description } from './openapi-support.js';
import { useServer } from './support.js';

const env = useServer();

/** The routes a cell of the table names, shorthand expanded. */
function routesIn(cell: string): string[] {
  const routes: string[] = [];
  let previous: { method: string; path: string } | undefined;
  for (const [, text] of cell.matchAll(/`([^`]+)`/g)) {
    const full = /^(GET|HEAD|POST|PUT|DELETE|PATCH) (\/\S*)$/.exec(text!);
    if (full) previous = { method: full[1]!, path: full[2]! };
    else if (previous) {
      previous = { method: previous.method, path: previous.path.replace(/[^/]+$/, text!) };
    } else throw new Error(`"${text}" in "${cell}" follows no route`);
    routes.push(`${previous.method} ${previous.path}`);
  }
  return routes;
}

describe('docs/security.md', () => {
  it('lists every route that changes something, and no other', async () => {
    const answer = await env.call<Description>('GET', '/api/openapi.json');
    expect(answer.status).toBe(200);
    const changes = Object.entries(answer.body.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => method !== 'get' && method !== 'head')
        .map((method) => `${method.toUpperCase()} ${path.replaceAll(/\{([^}]+)\}/g, ':$1')}`),
    );
    expect(changes).toContain('POST /api/runs');

    const page = readFileSync(new URL('../../../docs/security.md', import.meta.url), 'utf8');
    const lines = page.split('\n');
    const header = lines.findIndex((line) => /^\|\s*change\s*\|\s*route\s*\|/.test(line));
    expect(header, 'a table headed "change | route"').toBeGreaterThan(0);
    const documented: string[] = [];
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) break;
      documented.push(...routesIn(line.split('|')[2] ?? ''));
    }
    expect(changes.filter((route) => !documented.includes(route))).toEqual([]);
    expect(documented.filter((route) => !changes.includes(route))).toEqual([]);
  });
});
