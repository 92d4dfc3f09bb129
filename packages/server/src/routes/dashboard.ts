import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import type { AppEnv } from '../http/context.js';

/** The dashboard's files, shipped in the package's `dashboard/` folder beside `src/` and `dist/`. */
const folder = new URL('../../dashboard/', import.meta.url);

const files: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

/** The files, read once: they are small and never change while the server runs. */
function load(): Map<string, { body: string; type: string }> {
  return new Map(
    Object.entries(files).map(([name, type]) => [
      name,
      { body: readFileSync(new URL(name, folder), 'utf8'), type },
    ]),
  );
}

/**
 * Security headers of every dashboard file: scripts and styles only from this server (the page
 * renders user data, so a value that slipped through escaping still could not run a script), no
 * framing, no referrer leaking run ids.
 */
const Headers = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-cache',
};

/** The dashboard: a single page (`/`) and its two assets, with no build step and no CDN. */
export function dashboardRoutes(): Hono<AppEnv> {
  const assets = load();
  const app = new Hono<AppEnv>();
  const serve = (name: string) => {
    const file = assets.get(name)!;
    return new Response(file.body, { headers: { ...Headers, 'Content-Type': file.type } });
  };
  app.get('/', () => serve('index.html'));
  app.get('/assets/:name', (c) => {
    const name = c.req.param('name');
    return assets.has(name) && name !== 'index.html'
      ? serve(name)
      : c.json({ error: { code: 'NOT_FOUND', message: 'no such asset' } }, 404);
  });
  return app;
}
