// The hash route of the page shown, and its re-rendering.

let render = async () => {};

/** Sets what {@link refresh} renders (the app module's page renderer). */
export function setRenderer(renderer) {
  render = renderer;
}

/** The page the hash names (`#/runs/ID?state=failed`): its path's parts and its query. */
export function currentRoute() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts: parts.length ? parts : ['overview'], params: new URLSearchParams(query) };
}

/** Moves to a page, with its query. */
export function go(path, params) {
  const query = params && params.toString();
  location.hash = query ? `${path}?${query}` : path;
}

let rendering = Promise.resolve();

/** Renders the page for the hash; a later refresh waits for the one in flight. */
export function refresh() {
  rendering = rendering.then(render, render);
  return rendering;
}
