// The DOM helpers and formats every page uses. Every value from the API is rendered
// through text nodes or attributes set with the DOM API, never as HTML: run inputs, outputs and
// errors are user data.

export const RunStates = ['running', 'paused', 'completed', 'failed', 'cancelled'];
export const TerminalRunStates = new Set(['completed', 'failed', 'cancelled']);

/** The page's main element, where each page is rendered. */
export const view = document.getElementById('view');

// ---------------------------------------------------------------- DOM helpers

/** An element with attributes and children; strings and numbers become text nodes. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SvgNs = 'http://www.w3.org/2000/svg';

/** An SVG element, built like {@link h}. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SvgNs, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export const badge = (state) => h('span', { class: `badge s-${state}` }, state);
export const time = (value) => (value ? new Date(value).toLocaleString() : '');
export const shortId = (id) => (id ? `${id.slice(0, 8)}…` : '');
export const json = (value) => JSON.stringify(value, null, 2);

/** A span of milliseconds as an operator reads it: `850 ms`, `4.2 s`, `3 min`, `2 h 5 min`. */
export function span(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min`;
  if (ms < 86_400_000) {
    const minutes = Math.floor((ms % 3_600_000) / 60_000);
    return `${Math.floor(ms / 3_600_000)} h${minutes ? ` ${minutes} min` : ''}`;
  }
  return `${Math.floor(ms / 86_400_000)} d`;
}

/** A time relative to now (`3 min ago`, `in 5 s`), with the absolute time on hover. */
export function ago(value, now = Date.now()) {
  if (!value) return '';
  const at = new Date(value);
  const diff = now - at.getTime();
  const text =
    Math.abs(diff) < 1000 ? 'just now' : diff > 0 ? `${span(diff)} ago` : `in ${span(-diff)}`;
  return h('time', { datetime: at.toISOString(), title: at.toLocaleString() }, text);
}

/** How long a run or step took, or has taken so far. */
export function duration(startedAt, endedAt, now = Date.now()) {
  if (!startedAt) return '';
  const end = endedAt ? Date.parse(endedAt) : now;
  return span(Math.max(0, end - Date.parse(startedAt))) + (endedAt ? '' : ' so far');
}

export const UuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
