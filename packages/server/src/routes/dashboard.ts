import { readdirSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Api } from '../http/api.js';
import { errorBody } from '../http/http-errors.js';

/** The dashboard's files, shipped in the package's `dashboard/` folder beside `src/` and `dist/`. */
const folder = new URL('../../dashboard/', import.meta.url);

/** The content type of each kind of file the dashboard serves; other files are not served. */
const types: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * The files, read once: they are small and never change while the server runs. The page is
 * `index.html`; its script is `app.js` and the ES modules it imports, one per page.
 */
function load(): Map<string, { body: string; type: string }> {
  const loaded = new Map<string, { body: string; type: string }>();
  for (const name of readdirSync(folder)) {
    const type = types[name.slice(name.lastIndexOf('.'))];
    if (type !== undefined) {
      loaded.set(name, { body: readFileSync(new URL(name, folder), 'utf8'), type });
    }
  }
  return loaded;
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

/** `/assets/{name}`. */
const assetParams = z.strictObject({
  name: z.string().meta({
    description: 'A file of the dashboard: `app.js`, a module it imports, or `style.css`',
  }),
});

/** The dashboard: a single page (`/`) and its assets, with no build step and no CDN. */
export function dashboardRoutes(api: Api): void {
  const assets = load();
  const serve = (name: string) => {
    const file = assets.get(name)!;
    return new Response(file.body, { headers: { ...Headers, 'Content-Type': file.type } });
  };
  api.route(
    {
      method: 'get',
      path: '/',
      operationId: 'getDashboard',
      tag: 'dashboard',
      summary: 'The dashboard page',
      answers: { 200: { description: 'The page', content: { 'text/html': z.string() } } },
    },
    () => serve('index.html'),
  );
  api.route(
    {
      method: 'get',
      path: '/assets/{name}',
      operationId: 'getDashboardAsset',
      tag: 'dashboard',
      summary: "The dashboard's script modules and style sheet",
      params: assetParams,
      answers: {
        200: {
          description: 'The file',
          content: { 'text/javascript': z.string(), 'text/css': z.string() },
        },
      },
      errors: [404],
    },
    ({ params }) =>
      assets.has(params.name) && params.name !== 'index.html'
        ? serve(params.name)
        : { status: 404, body: errorBody('NOT_FOUND', 'no such asset') },
  );
}
