// Cyclone's dashboard: a single page with no dependencies and no build step, served by
// @cyclone/server. Every value from the API is rendered through text nodes or attributes set
// with the DOM API, never as HTML, because run inputs, outputs and errors are user data.

const RunStates = ['running', 'paused', 'completed', 'failed', 'cancelled'];
const TerminalRunStates = new Set(['completed', 'failed', 'cancelled']);
const PollMs = 3000;

const view = document.getElementById('view');

// ---------------------------------------------------------------- DOM helpers

/** An element with attributes and children; strings and numbers become text nodes. */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SvgNs = 'http://www.w3.org/2000/svg';

/** An SVG element, built like {@link h}. */
function s(tag, attrs = {}, ...children) {
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

const badge = (state) => h('span', { class: `badge s-${state}` }, state);
const time = (value) => (value ? new Date(value).toLocaleString() : '');
const shortId = (id) => (id ? `${id.slice(0, 8)}…` : '');
const json = (value) => JSON.stringify(value, null, 2);

/** A span of milliseconds as an operator reads it: `850 ms`, `4.2 s`, `3 min`, `2 h 5 min`. */
function span(ms) {
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
function ago(value, now = Date.now()) {
  if (!value) return '';
  const at = new Date(value);
  const diff = now - at.getTime();
  const text =
    Math.abs(diff) < 1000 ? 'just now' : diff > 0 ? `${span(diff)} ago` : `in ${span(-diff)}`;
  return h('time', { datetime: at.toISOString(), title: at.toLocaleString() }, text);
}

/** How long a run or step took, or has taken so far. */
function duration(startedAt, endedAt, now = Date.now()) {
  if (!startedAt) return '';
  const end = endedAt ? Date.parse(endedAt) : now;
  return span(Math.max(0, end - Date.parse(startedAt))) + (endedAt ? '' : ' so far');
}

const UuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let toastTimer;
function toast(message, bad = false) {
  const el = document.getElementById('toast');
  el.textContent = message;
  el.className = bad ? 'show bad' : 'show';
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.className = ''), 4000);
}

// ---------------------------------------------------------------- API

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
    this.reason = body?.error?.reason;
  }
}

let session;

/**
 * The token to send as Bearer on changes, or undefined on a server without one. The server
 * hands it back to this page's own script for the Basic credentials the browser holds
 * (`GET /api/session`): those alone only read, so a page elsewhere that makes the browser send
 * them changes nothing. Asked once; asked again after a failure.
 */
function bearer() {
  session ??= fetch('/api/session', { credentials: 'same-origin' })
    .then((response) => (response.ok ? response.json() : Promise.reject(new Error('no session'))))
    .then((body) => body.bearer ?? undefined)
    .catch((error) => {
      session = undefined;
      throw error;
    });
  return session;
}

/**
 * Calls the API; the browser sends the credentials it was given for this origin. A change is
 * always declared JSON (an empty body too) and carries the token as Bearer.
 */
async function api(path, options = {}) {
  const init = { method: options.method ?? 'GET', credentials: 'same-origin', headers: {} };
  if (init.method !== 'GET') {
    init.headers['Content-Type'] = 'application/json';
    if (options.body !== undefined) init.body = JSON.stringify(options.body);
    const token = await bearer();
    if (token) init.headers.Authorization = `Bearer ${token}`;
  }
  const response = await fetch(path, init);
  const body = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

/** A refused action's message, with the rule's reason when there is one. */
function describeError(error) {
  if (error instanceof ApiError && error.status === 409) {
    return `refused (${error.code}, ${error.reason}): ${error.message}`;
  }
  return error.message;
}

// ---------------------------------------------------------------- confirmation

/**
 * Asks before an action. `extra` are form controls shown in the dialog; resolves with the
 * dialog's form (to read them) when confirmed, or undefined.
 */
function confirmAction(text, extra = []) {
  const dialog = document.getElementById('confirm');
  document.getElementById('confirm-text').textContent = text;
  const holder = document.getElementById('confirm-extra');
  holder.replaceChildren(...extra);
  return new Promise((resolve) => {
    const onClose = () => {
      // A close event of an earlier opening, delivered after this one began: not our answer.
      if (dialog.open) return;
      dialog.removeEventListener('close', onClose);
      resolve(dialog.returnValue === 'ok' ? dialog.querySelector('form') : undefined);
    };
    dialog.addEventListener('close', onClose);
    dialog.returnValue = '';
    dialog.showModal();
  });
}

/** Runs a confirmed action, reports it, and reloads the page shown. */
async function act(question, work, extra) {
  const form = await confirmAction(question, extra);
  if (!form) return;
  try {
    const done = await work(form);
    toast(done ?? 'done');
  } catch (error) {
    toast(describeError(error), true);
  }
  await refresh();
}

// ---------------------------------------------------------------- routing

function currentRoute() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { parts: parts.length ? parts : ['overview'], params: new URLSearchParams(query) };
}

function go(path, params) {
  const query = params && params.toString();
  location.hash = query ? `${path}?${query}` : path;
}

let rendering = Promise.resolve();

/** Renders the page for the hash; a later refresh waits for the one in flight. */
function refresh() {
  rendering = rendering.then(renderNow, renderNow);
  return rendering;
}

async function renderNow() {
  const { parts, params } = currentRoute();
  for (const link of document.querySelectorAll('[data-nav]')) {
    link.classList.toggle('active', link.dataset.nav === parts[0]);
  }
  try {
    let content;
    if (parts[0] === 'runs' && parts[1]) content = await runPage(parts[1]);
    else if (parts[0] === 'dlq') content = await dlqPage(params);
    else if (parts[0] === 'schedules') content = await schedulesPage();
    else if (parts[0] === 'limits') content = await limitsPage();
    else if (parts[0] === 'workers') content = await workersPage(params);
    else if (parts[0] === 'runs') content = await runsPage(params);
    else content = await overviewPage();
    // Keep what the user is typing: a live refresh must not wipe a half-filled filter.
    const editing =
      view.dataset.dirty === 'yes' ||
      (document.activeElement && view.contains(document.activeElement));
    if (live.auto && editing) return;
    delete view.dataset.dirty;
    view.replaceChildren(content);
  } catch (error) {
    view.replaceChildren(
      h('div', { class: 'card error' }, `Could not load this page: ${describeError(error)}`),
    );
  } finally {
    live.auto = false;
  }
}

// ---------------------------------------------------------------- runs

/**
 * The runs of a search: a run id opens that run; otherwise the text is tried as an idempotency
 * key, then as a workflow name. Answers the page and what the text matched.
 */
async function searchRuns(text, query) {
  if (UuidPattern.test(text)) {
    try {
      const { run } = await api(`/api/runs/${encodeURIComponent(text)}`);
      return { page: { runs: [run] }, matched: 'run id' };
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 404)) throw error;
      return { page: { runs: [] }, matched: 'run id' };
    }
  }
  const byKey = new URLSearchParams(query);
  byKey.set('idempotencyKey', text);
  const keyed = await api(`/api/runs?${byKey}`);
  if (keyed.runs.length > 0) return { page: keyed, matched: 'idempotency key' };
  const byWorkflow = new URLSearchParams(query);
  byWorkflow.set('workflow', text);
  return { page: await api(`/api/runs?${byWorkflow}`), matched: 'workflow' };
}

async function runsPage(params) {
  const query = new URLSearchParams();
  for (const name of ['state', 'workflow', 'cursor']) {
    if (params.get(name)) query.set(name, params.get(name));
  }
  query.set('limit', '50');
  const searched = params.get('q')?.trim();
  const { page, matched } = searched
    ? await searchRuns(searched, query)
    : { page: await api(`/api/runs?${query}`), matched: undefined };
  const now = Date.now();

  const edited = () => (view.dataset.dirty = 'yes');
  const state = h(
    'select',
    { name: 'state', id: 'filter-state', onchange: edited },
    h('option', { value: '' }, 'any state'),
    RunStates.map((st) => h('option', { value: st, selected: params.get('state') === st }, st)),
  );
  const search = h('input', {
    name: 'q',
    id: 'filter-search',
    type: 'search',
    oninput: edited,
    placeholder: 'run id, idempotency key or workflow',
    value: params.get('q') ?? params.get('workflow') ?? '',
    size: 36,
  });
  const apply = () => {
    const next = new URLSearchParams();
    if (state.value) next.set('state', state.value);
    if (search.value.trim()) next.set('q', search.value.trim());
    go('/runs', next);
  };
  const filters = h(
    'form',
    {
      class: 'filters',
      role: 'search',
      onsubmit: (event) => {
        event.preventDefault();
        apply();
      },
    },
    h('label', {}, 'State', state),
    h('label', {}, 'Search', search),
    h('button', { class: 'primary', type: 'submit', id: 'filter-apply' }, 'Filter'),
  );

  const rows = page.runs.map((run) =>
    h(
      'tr',
      { 'data-run': run.id },
      h('td', { class: 'mono' }, h('a', { href: `#/runs/${encodeURIComponent(run.id)}` }, run.id)),
      h('td', {}, run.workflow),
      h('td', {}, badge(run.state)),
      h('td', { class: 'created' }, ago(run.createdAt, now)),
      h('td', { class: 'duration' }, duration(run.startedAt ?? run.createdAt, run.endedAt, now)),
      h('td', { class: 'error' }, run.error ?? ''),
    ),
  );
  const more = page.nextCursor
    ? h(
        'button',
        {
          onclick: () => {
            const next = new URLSearchParams(params);
            next.set('cursor', page.nextCursor);
            go('/runs', next);
          },
        },
        'Older runs',
      )
    : null;
  return h(
    'section',
    { id: 'runs-page' },
    h('h1', {}, 'Runs'),
    filters,
    matched &&
      h('p', { class: 'muted', id: 'search-matched' }, `Matched “${searched}” by ${matched}.`),
    page.runs.length === 0
      ? h('p', { class: 'muted' }, 'No runs match.')
      : h(
          'table',
          { id: 'runs-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Run', 'Workflow', 'State', 'Created', 'Duration', 'Error'].map((t) =>
                h('th', {}, t),
              ),
            ),
          ),
          h('tbody', {}, rows),
        ),
    more,
  );
}

// ---------------------------------------------------------------- one run

/** The nodes of a run (item tasks folded into their fan-out node), laid out in layers. */
function layoutDag(steps) {
  const nodes = steps.filter((step) => step.itemIndex === null);
  const byName = new Map(nodes.map((n) => [n.node, n]));
  const layer = new Map();
  const layerOf = (name, seen = new Set()) => {
    if (layer.has(name)) return layer.get(name);
    if (seen.has(name)) return 0;
    seen.add(name);
    const deps = (byName.get(name)?.dependsOn ?? []).filter((d) => byName.has(d));
    const value = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => layerOf(d, seen)));
    layer.set(name, value);
    return value;
  };
  const columns = [];
  for (const n of nodes) {
    const l = layerOf(n.node);
    (columns[l] ??= []).push(n);
  }
  const W = 170;
  const H = 50;
  const GapX = 60;
  const GapY = 22;
  const pos = new Map();
  columns.forEach((column, x) =>
    column.forEach((n, y) => pos.set(n.node, { x: 20 + x * (W + GapX), y: 20 + y * (H + GapY) })),
  );
  const width = 40 + columns.length * (W + GapX) - GapX;
  const height = 40 + Math.max(1, ...columns.map((c) => c.length)) * (H + GapY) - GapY;
  return { nodes, pos, W, H, width, height };
}

function dagView(steps, selected, onSelect) {
  const { nodes, pos, W, H, width, height } = layoutDag(steps);
  const items = new Map();
  for (const step of steps) {
    if (step.itemIndex === null) continue;
    const count = items.get(step.node) ?? { done: 0, all: 0 };
    count.all += 1;
    if (step.state === 'completed') count.done += 1;
    items.set(step.node, count);
  }
  const edges = [];
  for (const n of nodes) {
    const to = pos.get(n.node);
    for (const dep of n.dependsOn) {
      const from = pos.get(dep);
      if (!from) continue;
      const x1 = from.x + W;
      const y1 = from.y + H / 2;
      const x2 = to.x;
      const y2 = to.y + H / 2;
      const mid = (x1 + x2) / 2;
      edges.push(
        s('path', {
          class: 'edge',
          d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`,
          'marker-end': 'url(#arrow)',
        }),
      );
    }
  }
  const boxes = nodes.map((n) => {
    const p = pos.get(n.node);
    const count = items.get(n.node);
    const sub = count ? `${n.state} · ${count.done}/${count.all} items` : n.state;
    return s(
      'g',
      {
        class: n.node === selected ? 'node selected' : 'node',
        'data-node': n.node,
        'data-state': n.state,
        onclick: () => onSelect(n.node),
      },
      s('title', {}, `${n.node} (${n.nodeType}): ${n.state}`),
      s('rect', {
        x: p.x,
        y: p.y,
        width: W,
        height: H,
        rx: 8,
        fill: `var(--${colourOf(n.state)})`,
      }),
      s('text', { x: p.x + 10, y: p.y + 20, 'font-weight': 600 }, clip(n.node, 22)),
      s('text', { x: p.x + 10, y: p.y + 38 }, clip(sub, 26)),
    );
  });
  return h(
    'div',
    { class: 'dag', id: 'dag' },
    s(
      'svg',
      { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'run graph' },
      s(
        'defs',
        {},
        s(
          'marker',
          {
            id: 'arrow',
            viewBox: '0 0 10 10',
            refX: 10,
            refY: 5,
            markerWidth: 6,
            markerHeight: 6,
            orient: 'auto-start-reverse',
          },
          s('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#94a3b8' }),
        ),
      ),
      edges,
      boxes,
    ),
  );
}

function colourOf(state) {
  if (state.startsWith('waiting_')) return 'waiting';
  if (state === 'discarded') return 'failed';
  return state;
}

const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

let selectedNode;

async function runPage(runId) {
  const path = `/api/runs/${encodeURIComponent(runId)}`;
  const [{ run, steps }, { events }] = await Promise.all([api(path), api(`${path}/events`)]);
  const nodes = steps.filter((step) => step.itemIndex === null);
  const explanations = await explainAll(path, nodes);

  const terminal = TerminalRunStates.has(run.state);
  const discarded = nodes.filter((n) => n.state === 'discarded');
  const post = (action, body) => api(`${path}/${action}`, { method: 'POST', body });
  const actions = h(
    'div',
    { class: 'actions' },
    !terminal &&
      h(
        'button',
        {
          class: 'danger',
          id: 'action-cancel',
          onclick: () =>
            act(`Cancel run ${run.id}? Its open steps are cancelled.`, () =>
              post('cancel').then(() => 'run cancelled'),
            ),
        },
        'Cancel run',
      ),
    run.state === 'running' &&
      h(
        'button',
        {
          id: 'action-pause',
          onclick: () =>
            act(`Pause run ${run.id}? Nothing new starts until it is resumed.`, () =>
              post('pause').then(() => 'run paused'),
            ),
        },
        'Pause',
      ),
    run.state === 'paused' &&
      h(
        'button',
        {
          id: 'action-resume',
          onclick: () =>
            act(`Resume run ${run.id}?`, () => post('resume').then(() => 'run resumed')),
        },
        'Resume',
      ),
    discarded.length > 0 &&
      h(
        'button',
        {
          id: 'action-retry-all',
          onclick: () =>
            act(`Retry every discarded node of run ${run.id} (${discarded.length})?`, () =>
              post('retry-all').then(() => 'retried'),
            ),
        },
        'Retry all discarded',
      ),
    !terminal &&
      h('button', { id: 'action-signal', onclick: () => signalDialog(path) }, 'Send signal'),
  );

  const selectNode = (name) => {
    selectedNode = name;
    void refresh();
  };
  const focus = nodes.find((n) => n.node === selectedNode);

  return h(
    'section',
    { id: 'run-page', 'data-run': run.id, 'data-state': run.state },
    h('p', {}, h('a', { href: '#/runs' }, '← Runs')),
    h('h1', {}, `${run.workflow} `, badge(run.state)),
    h(
      'div',
      { class: 'card' },
      h(
        'dl',
        { class: 'kv' },
        h('dt', {}, 'Run'),
        h('dd', { class: 'mono' }, run.id),
        h('dt', {}, 'Created'),
        h('dd', {}, time(run.createdAt)),
        h('dt', {}, 'Started'),
        h('dd', {}, time(run.startedAt)),
        h('dt', {}, 'Ended'),
        h('dd', {}, time(run.endedAt)),
        h('dt', {}, 'Failures / reclaims'),
        h('dd', {}, `${run.failureCount} / ${run.reclaimCount}`),
        run.parentRunId && [
          h('dt', {}, 'Parent run'),
          h('dd', {}, h('a', { href: `#/runs/${run.parentRunId}` }, run.parentRunId)),
        ],
        run.error && [
          h('dt', {}, 'Error'),
          h('dd', { class: 'error', id: 'run-error' }, `${run.errorKind ?? ''}: ${run.error}`),
        ],
      ),
      actions,
    ),
    h(
      'div',
      { class: 'graph-timeline' },
      h('div', {}, h('h2', {}, 'Graph'), dagView(steps, selectedNode, selectNode)),
      h('div', {}, h('h2', {}, 'Timeline'), timelineView(run, steps, events)),
    ),
    focus && nodeDetail(focus, explanations.get(focus.node), steps),
    h('h2', {}, 'Steps'),
    explanations.unsupported &&
      h(
        'p',
        { class: 'muted', id: 'explain-unsupported' },
        'This server cannot explain nodes yet (its client has no explain).',
      ),
    stepsTable(path, nodes, explanations),
    h('h2', {}, 'Events'),
    eventsTable(events),
  );
}

/**
 * The explanation of every node that is not running. A server whose client cannot explain answers
 * 501: then the page says so once instead of on every row.
 */
async function explainAll(path, nodes) {
  const result = new Map();
  await Promise.all(
    nodes
      .filter((n) => n.state !== 'running')
      .map(async (n) => {
        try {
          result.set(n.node, await api(`${path}/nodes/${encodeURIComponent(n.node)}/explain`));
        } catch (error) {
          if (error instanceof ApiError && error.status === 501) result.unsupported = true;
          else result.set(n.node, { unavailable: describeError(error) });
        }
      }),
  );
  return result;
}

function explanationText(explanation) {
  if (!explanation) return '';
  if (explanation.unavailable) return `(no explanation: ${explanation.unavailable})`;
  const parts = [explanation.message];
  if (explanation.waitingOn?.length) parts.push(`waiting on ${explanation.waitingOn.join(', ')}`);
  if (explanation.until) parts.push(`until ${time(explanation.until)}`);
  return parts.join(' · ');
}

function nodeDetail(node, explanation, steps) {
  const items = steps.filter((s) => s.node === node.node && s.itemIndex !== null);
  return h(
    'div',
    { class: 'card', id: 'node-detail' },
    h('h2', {}, `${node.node} `, badge(node.state)),
    h('p', { class: 'muted', id: 'node-explanation' }, explanationText(explanation)),
    node.error && h('p', { class: 'error' }, `${node.errorKind ?? ''}: ${node.error}`),
    node.output !== undefined && [
      h('div', { class: 'muted' }, 'Output'),
      h('pre', {}, json(node.output)),
    ],
    items.length > 0 &&
      h(
        'p',
        {},
        `${items.length} item tasks: `,
        items.map((i) => [badge(i.state), ' ']),
      ),
  );
}

/**
 * A step's derived label beside its state (`AwaitingResource` for a ready step a flow limit holds
 * back, `Cached` for a task completed from the result cache, `AwaitingRetry`, ...): the
 * explanation's, else the step's own flag.
 */
function labelOf(step, explanation) {
  const label =
    explanation?.label ??
    (step.awaitingResource ? 'AwaitingResource' : step.cached ? 'Cached' : undefined);
  return label && [' ', h('span', { class: 'label', 'data-label': label }, label)];
}

function stepsTable(path, nodes, explanations) {
  return h(
    'table',
    { id: 'steps-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['Node', 'Type', 'Kind', 'State', 'Attempts', 'Error', 'Why', ''].map((t) =>
          h('th', {}, t),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      nodes.map((n) =>
        h(
          'tr',
          { 'data-node': n.node },
          h('td', {}, n.node),
          h('td', {}, n.nodeType),
          h('td', { class: 'mono' }, n.kind ?? ''),
          h('td', {}, badge(n.state), labelOf(n, explanations.get(n.node))),
          h('td', {}, `${n.attempts}/${n.maxAttempts}`),
          h('td', { class: 'error' }, n.error ? `${n.errorKind ?? ''}: ${n.error}` : ''),
          h('td', { class: 'muted' }, explanationText(explanations.get(n.node))),
          h(
            'td',
            {},
            n.state === 'discarded' &&
              h(
                'button',
                {
                  'data-retry': n.node,
                  onclick: () =>
                    act(`Retry node ${n.node}?`, () =>
                      api(`${path}/retry`, { method: 'POST', body: { node: n.node } }).then(
                        () => `retried ${n.node}`,
                      ),
                    ),
                },
                'Retry',
              ),
            !['completed', 'discarded', 'cancelled'].includes(n.state) &&
              h(
                'button',
                { 'data-force': n.node, onclick: () => forceDialog(path, n.node) },
                'Force…',
              ),
          ),
        ),
      ),
    ),
  );
}

/**
 * Moves a node by hand (`POST .../nodes/:node/transition` with `force`): to completed with an
 * output, discarded or cancelled, with the operator's reason, which its event records.
 */
function forceDialog(path, node) {
  const to = h(
    'select',
    { name: 'force-to', id: 'force-to' },
    ['completed', 'discarded', 'cancelled'].map((state) => h('option', { value: state }, state)),
  );
  const output = h('textarea', {
    name: 'force-output',
    id: 'force-output',
    rows: 3,
    placeholder: 'output of a completion, JSON (empty: null)',
  });
  const reason = h('input', {
    name: 'force-reason',
    id: 'force-reason',
    placeholder: 'why',
    required: true,
  });
  void act(
    `Force node ${node}? The run goes on as if it had got there by itself.`,
    async () => {
      const text = output.value.trim();
      const body = { to: to.value, reason: reason.value, force: true };
      if (to.value === 'completed' && text !== '') body.output = JSON.parse(text);
      const { move } = await api(`${path}/nodes/${encodeURIComponent(node)}/transition`, {
        method: 'POST',
        body,
      });
      return `forced ${node}: ${move.from} → ${move.to}`;
    },
    [
      h('label', {}, 'To', to),
      h('label', {}, 'Output (JSON)', output),
      h('label', {}, 'Reason', reason),
    ],
  );
}

function eventsTable(events) {
  return h(
    'table',
    { id: 'events-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['At', 'Node', 'Event', 'Move', 'Error kind'].map((t) => h('th', {}, t)),
      ),
    ),
    h(
      'tbody',
      {},
      events.map((e) =>
        h(
          'tr',
          {},
          h('td', {}, time(e.at)),
          h('td', {}, e.node ?? 'run'),
          h(
            'td',
            { class: 'mono' },
            e.type,
            e.forced !== undefined &&
              h(
                'span',
                { class: 'forced', 'data-forced': String(e.forced) },
                ` ${e.forced ? 'forced' : 'by an operator'}: ${e.reason ?? ''}`,
              ),
          ),
          h('td', {}, e.from || e.to ? `${e.from ?? '·'} → ${e.to ?? '·'}` : ''),
          h('td', {}, e.errorKind ?? ''),
        ),
      ),
    ),
  );
}

function signalDialog(path) {
  const name = h('input', {
    name: 'signal-name',
    id: 'signal-name',
    placeholder: 'signal name',
    required: true,
  });
  const payload = h('textarea', {
    name: 'signal-payload',
    id: 'signal-payload',
    rows: 4,
    placeholder: '{"approved": true}',
  });
  void act(
    'Send a signal to this run:',
    async () => {
      const text = payload.value.trim();
      const body = text === '' ? null : JSON.parse(text);
      const receipt = await api(`${path}/signals/${encodeURIComponent(name.value)}`, {
        method: 'POST',
        body,
      });
      return receipt.consumedBy
        ? `consumed by ${receipt.consumedBy}`
        : 'signal kept until a node waits for it';
    },
    [h('label', {}, 'Name', name), h('label', {}, 'Payload (JSON)', payload)],
  );
}

// ---------------------------------------------------------------- DLQ

async function dlqPage(params) {
  const query = new URLSearchParams({ limit: '1000' });
  if (params.get('workflow')) query.set('workflow', params.get('workflow'));
  const { steps } = await api(`/api/dlq?${query}`);
  const groups = new Map();
  for (const step of steps) {
    if (!groups.has(step.reason)) groups.set(step.reason, []);
    groups.get(step.reason).push(step);
  }
  const sections = [...groups.entries()].map(([reason, group]) =>
    h(
      'div',
      { class: 'card', 'data-reason': reason },
      h(
        'div',
        { class: 'group-head' },
        h('h2', {}, `${reason} (${group.length})`),
        h(
          'button',
          {
            class: 'primary',
            'data-redrive': reason,
            onclick: () =>
              act(
                `Redrive every ${reason} step${params.get('workflow') ? ` of ${params.get('workflow')}` : ''}?`,
                () =>
                  api('/api/dlq/redrive', {
                    method: 'POST',
                    body: {
                      reason,
                      ...(params.get('workflow') ? { workflow: params.get('workflow') } : {}),
                    },
                  }).then((r) => `retried ${r.retried} step(s) in ${r.runs.length} run(s)`),
              ),
          },
          'Redrive',
        ),
      ),
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Run', 'Workflow', 'Node', 'Attempts', 'Error', 'Ended'].map((t) => h('th', {}, t)),
          ),
        ),
        h(
          'tbody',
          {},
          group.map((step) =>
            h(
              'tr',
              { 'data-run': step.runId },
              h(
                'td',
                { class: 'mono' },
                h('a', { href: `#/runs/${step.runId}` }, shortId(step.runId)),
              ),
              h('td', {}, step.workflow),
              h('td', {}, step.itemIndex === null ? step.node : `${step.node}[${step.itemIndex}]`),
              h('td', {}, `${step.attempts}/${step.maxAttempts}`),
              h('td', { class: 'error' }, step.error ?? ''),
              h('td', {}, time(step.endedAt)),
            ),
          ),
        ),
      ),
    ),
  );
  return h(
    'section',
    { id: 'dlq-page' },
    h('h1', {}, 'Dead-letter queue'),
    sections.length === 0 ? h('p', { class: 'muted' }, 'No discarded steps.') : sections,
  );
}

// ---------------------------------------------------------------- schedules

async function schedulesPage() {
  const { schedules } = await api('/api/schedules?fires=5');
  const cards = schedules.map((schedule) =>
    h(
      'div',
      { class: 'card', 'data-schedule': schedule.id },
      h(
        'div',
        { class: 'group-head' },
        h('h2', {}, schedule.id),
        h(
          'span',
          { class: `badge ${schedule.enabled ? 's-completed' : 's-paused'}` },
          schedule.enabled ? 'enabled' : 'paused',
        ),
        schedule.enabled
          ? h(
              'button',
              {
                'data-toggle': schedule.id,
                onclick: () =>
                  act(`Pause schedule ${schedule.id}?`, () =>
                    api(`/api/schedules/${encodeURIComponent(schedule.id)}/pause`, {
                      method: 'POST',
                    }).then(() => 'paused'),
                  ),
              },
              'Pause',
            )
          : h(
              'button',
              {
                'data-toggle': schedule.id,
                onclick: () =>
                  act(`Resume schedule ${schedule.id}?`, () =>
                    api(`/api/schedules/${encodeURIComponent(schedule.id)}/resume`, {
                      method: 'POST',
                    }).then(() => 'resumed'),
                  ),
              },
              'Resume',
            ),
      ),
      h(
        'dl',
        { class: 'kv' },
        h('dt', {}, 'Cron'),
        h('dd', { class: 'mono' }, `${schedule.cron} (${schedule.timezone})`),
        h('dt', {}, 'Starts'),
        h('dd', {}, schedule.workflow ? `workflow ${schedule.workflow}` : `job ${schedule.kind}`),
        h('dt', {}, 'Next fire'),
        h('dd', {}, time(schedule.nextRunAt)),
        h('dt', {}, 'Overlap / catch-up'),
        h('dd', {}, `${schedule.overlap} / ${schedule.catchUp}`),
        schedule.lastError && [
          h('dt', {}, 'Last error'),
          h('dd', { class: 'error' }, schedule.lastError),
        ],
      ),
      schedule.fires.length === 0
        ? h('p', { class: 'muted' }, 'No fires yet.')
        : h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Tick', 'Outcome', 'Run', 'Late', 'Error'].map((t) => h('th', {}, t)),
              ),
            ),
            h(
              'tbody',
              {},
              schedule.fires.map((fire) =>
                h(
                  'tr',
                  {},
                  h('td', {}, time(fire.fireAt)),
                  h('td', {}, fire.outcome),
                  h(
                    'td',
                    { class: 'mono' },
                    fire.runId ? h('a', { href: `#/runs/${fire.runId}` }, shortId(fire.runId)) : '',
                  ),
                  h('td', {}, fire.late ? 'late' : ''),
                  h('td', { class: 'error' }, fire.error ?? ''),
                ),
              ),
            ),
          ),
    ),
  );
  return h(
    'section',
    { id: 'schedules-page' },
    h('h1', {}, 'Schedules'),
    cards.length === 0 ? h('p', { class: 'muted' }, 'No schedules.') : cards,
  );
}

// ---------------------------------------------------------------- overview

/** A number that links to the list behind it. */
const figure = (value, href, label) =>
  href ? h('a', { href, class: 'figure', title: label }, String(value)) : String(value);

async function overviewPage() {
  const [{ queues }, { runs }, stats] = await Promise.all([
    api('/api/queues'),
    api('/api/run-states'),
    api('/api/stats?window=1h'),
  ]);
  const totals = h(
    'div',
    { class: 'totals', id: 'run-totals' },
    runs.map((r) =>
      h(
        'a',
        {
          class: 'total card',
          href: `#/runs?state=${encodeURIComponent(r.state)}`,
          'data-state': r.state,
        },
        h('span', { class: 'total-n' }, String(r.runs)),
        h('span', {}, badge(r.state)),
      ),
    ),
  );
  const queueRows = queues.map((q) =>
    h(
      'tr',
      { 'data-kind': q.kind },
      h('td', { class: 'mono' }, q.kind),
      h('td', { 'data-col': 'ready' }, String(q.ready)),
      h(
        'td',
        { 'data-col': 'running' },
        figure(
          q.running,
          q.running ? `#/workers?kind=${encodeURIComponent(q.kind)}` : undefined,
          'the workers holding them',
        ),
      ),
      h('td', { 'data-col': 'waitingOnLimit' }, String(q.waitingOnLimit)),
      h('td', { 'data-col': 'scheduledLater' }, String(q.scheduledLater)),
      h(
        'td',
        { 'data-col': 'discardedLastHour' },
        figure(q.discardedLastHour, q.discardedLastHour ? '#/dlq' : undefined, 'the DLQ'),
      ),
      h(
        'td',
        { 'data-col': 'oldestReadyAge' },
        q.ready > 0 ? span(q.oldestReadyAgeSeconds * 1000) : '',
      ),
    ),
  );
  return h(
    'section',
    { id: 'overview-page' },
    h('h1', {}, 'Overview'),
    h('h2', {}, 'Runs by state'),
    totals,
    h('h2', {}, 'Queues by kind'),
    queues.length === 0
      ? h('p', { class: 'muted' }, 'No kinds yet: no worker registered and nothing queued.')
      : h(
          'table',
          { id: 'queues-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              [
                'Kind',
                'Ready',
                'Running',
                'Waiting on a limit',
                'Scheduled later',
                'Discarded (1 h)',
                'Oldest ready',
              ].map((t) => h('th', {}, t)),
            ),
          ),
          h('tbody', {}, queueRows),
        ),
    h('h2', {}, 'The last hour'),
    h(
      'div',
      { class: 'charts' },
      lineChart({
        id: 'chart-throughput',
        title: 'Steps per minute',
        unit: 'steps',
        minutes: stats.minutes,
        series: [
          { name: 'completed', key: 'completed', style: 'solid' },
          { name: 'failed', key: 'failed', style: 'dashed' },
        ],
      }),
      lineChart({
        id: 'chart-wait',
        title: 'Queue wait (ms)',
        unit: 'ms',
        minutes: stats.minutes,
        series: [
          { name: 'p50', key: 'waitP50Ms', style: 'solid' },
          { name: 'p95', key: 'waitP95Ms', style: 'dashed' },
        ],
      }),
    ),
  );
}

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
function niceMax(max) {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const clock = (value) =>
  new Date(value).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/**
 * A line chart of per-minute values as inline SVG: labelled axes, one line per series told apart
 * by its stroke (solid, dashed) and its marker (circle, square) as well as its colour, a legend
 * naming them, and each point's value on hover.
 */
function lineChart({ id, title, unit, minutes, series }) {
  const W = 560;
  const H = 200;
  const left = 52;
  const right = 12;
  const top = 14;
  const bottom = 34;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const values = series.flatMap((se) => minutes.map((m) => m[se.key] ?? 0));
  const yMax = niceMax(Math.max(0, ...values));
  const x = (i) => left + (minutes.length <= 1 ? 0 : (i / (minutes.length - 1)) * plotW);
  const y = (v) => top + plotH - (v / yMax) * plotH;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = yMax * f;
    return s(
      'g',
      { class: 'tick' },
      s('line', { x1: left, x2: W - right, y1: y(v), y2: y(v), class: 'grid' }),
      s(
        'text',
        { x: left - 6, y: y(v) + 4, 'text-anchor': 'end' },
        Number.isInteger(v) ? String(v) : v.toFixed(1),
      ),
    );
  });
  const xTicks = [];
  for (let i = 0; i < minutes.length; i += 15) xTicks.push(i);
  if (minutes.length > 0 && xTicks[xTicks.length - 1] !== minutes.length - 1) {
    xTicks.push(minutes.length - 1);
  }
  const xLabels = xTicks.map((i) =>
    s('text', { x: x(i), y: H - bottom + 16, 'text-anchor': 'middle' }, clock(minutes[i].minute)),
  );
  const lines = series.map((se, n) => {
    const points = minutes
      .map((m, i) => (m[se.key] === null || m[se.key] === undefined ? null : [i, m[se.key]]))
      .filter(Boolean);
    const marker = (i, v) => {
      const label = `${clock(minutes[i].minute)} ${se.name}: ${Math.round(v * 10) / 10} ${unit}`;
      return n === 0
        ? s('circle', { cx: x(i), cy: y(v), r: 2.5 }, s('title', {}, label))
        : s('rect', { x: x(i) - 2.5, y: y(v) - 2.5, width: 5, height: 5 }, s('title', {}, label));
    };
    return s(
      'g',
      { class: `series series-${n} ${se.style}`, 'data-series': se.name },
      s('polyline', {
        points: points.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '),
      }),
      points.map(([i, v]) => marker(i, v)),
    );
  });
  const legend = series.map((se, n) =>
    s(
      'g',
      {
        class: `series series-${n} ${se.style}`,
        transform: `translate(${left + n * 110}, ${H - 6})`,
      },
      s('line', { x1: 0, x2: 22, y1: -4, y2: -4 }),
      n === 0
        ? s('circle', { cx: 11, cy: -4, r: 2.5 })
        : s('rect', { x: 8.5, y: -6.5, width: 5, height: 5 }),
      s('text', { x: 28, y: 0, class: 'legend' }, se.name),
    ),
  );
  return h(
    'figure',
    { class: 'card chart', id },
    h('figcaption', {}, title),
    s(
      'svg',
      {
        viewBox: `0 0 ${W} ${H}`,
        role: 'img',
        'aria-label': `${title}, the last ${minutes.length} minutes`,
      },
      s('g', { class: 'axis' }, grid, xLabels),
      s('line', { x1: left, x2: left, y1: top, y2: top + plotH, class: 'axis-line' }),
      s('line', { x1: left, x2: W - right, y1: top + plotH, y2: top + plotH, class: 'axis-line' }),
      s(
        'text',
        {
          x: 12,
          y: top + plotH / 2,
          class: 'axis-title',
          transform: `rotate(-90 12 ${top + plotH / 2})`,
          'text-anchor': 'middle',
        },
        unit,
      ),
      lines,
      legend,
    ),
  );
}

// ---------------------------------------------------------------- workers

async function workersPage(params) {
  const { now, live: liveWorkers, stopped, leader } = await api('/api/workers');
  const at = Date.parse(now);
  const kind = params.get('kind');
  const shown = kind ? liveWorkers.filter((w) => w.kinds.includes(kind)) : liveWorkers;
  const heldList = (worker) =>
    worker.heldCount === 0
      ? ''
      : h(
          'details',
          {},
          h('summary', {}, `${worker.heldCount} / ${worker.concurrency ?? '?'}`),
          h(
            'ul',
            { class: 'held' },
            worker.heldSteps
              .filter((step) => !kind || step.kind === kind)
              .map((step) =>
                h(
                  'li',
                  {},
                  h('a', { href: `#/runs/${encodeURIComponent(step.runId)}` }, shortId(step.runId)),
                  ` ${step.node} (${step.kind}), running `,
                  ago(step.startedAt, at),
                ),
              ),
          ),
        );
  const table = (workers, id) =>
    h(
      'table',
      { id },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Worker', 'Host', 'PID', 'Kinds', 'Held / concurrency', 'Last heartbeat', 'Started'].map(
            (t) => h('th', {}, t),
          ),
        ),
      ),
      h(
        'tbody',
        {},
        workers.map((w) =>
          h(
            'tr',
            { 'data-worker': w.id },
            h('td', { class: 'mono' }, w.id),
            h('td', {}, w.host ?? ''),
            h('td', {}, w.pid ?? ''),
            h('td', { class: 'mono' }, w.kinds.join(', ')),
            h(
              'td',
              { 'data-col': 'held' },
              w.heldCount === 0 ? `0 / ${w.concurrency ?? '?'}` : heldList(w),
            ),
            h('td', {}, ago(w.lastHeartbeatAt, at)),
            h('td', {}, ago(w.startedAt, at)),
          ),
        ),
      ),
    );
  const leaderCard = h(
    'div',
    { class: 'card', id: 'leader' },
    leader
      ? h(
          'dl',
          { class: 'kv' },
          h('dt', {}, 'Scheduler leader'),
          h('dd', { class: 'mono' }, leader.holder),
          h('dt', {}, 'Lease'),
          h('dd', {}, leader.active ? 'held' : 'lapsed: no scheduler leads now'),
          h('dt', {}, 'Last pass'),
          h('dd', {}, ago(leader.lastPassAt, at)),
          h('dt', {}, 'Leading since'),
          h('dd', {}, ago(leader.ledSince, at)),
        )
      : h('p', { class: 'muted' }, 'No scheduler has led yet.'),
  );
  return h(
    'section',
    { id: 'workers-page' },
    h('h1', {}, kind ? `Workers of ${kind}` : 'Workers'),
    kind && h('p', {}, h('a', { href: '#/workers' }, 'All workers')),
    leaderCard,
    h('h2', {}, `Live (${shown.length})`),
    shown.length === 0
      ? h('p', { class: 'muted' }, 'No live worker.')
      : table(shown, 'live-workers'),
    h('h2', {}, `Stopped heartbeating in the last hour (${stopped.length})`),
    stopped.length === 0
      ? h('p', { class: 'muted' }, 'None: every worker that stopped did so cleanly.')
      : table(stopped, 'stopped-workers'),
  );
}

// ---------------------------------------------------------------- a run's timeline

/** What a step was doing after an event that moved it to `to`, or null when it is not drawn. */
function phaseAfter(event) {
  switch (event.to) {
    case 'available':
      if (event.type === 'step_retry_scheduled') return 'backoff';
      if (event.type === 'step_snoozed') return 'snoozed';
      return 'queued';
    case 'running':
      return 'running';
    case 'waiting_signal':
    case 'waiting_timer':
    case 'waiting_child':
      return 'waiting';
    case 'paused':
      return 'paused';
    default:
      return null;
  }
}

const PhaseNames = {
  queued: 'queued',
  running: 'running',
  backoff: 'retry backoff',
  snoozed: 'snoozed',
  waiting: 'waiting',
  paused: 'paused',
};

/**
 * The segments of one step's life from its events: each event that moves the step starts a
 * segment of what it does next, until the next such event (or `end` for the one still open).
 */
function segmentsOf(events, end) {
  const segments = [];
  let open;
  let attempt = 0;
  for (const event of events) {
    if (!event.to) continue;
    const at = Date.parse(event.at);
    if (open) segments.push({ ...open, to: at });
    if (event.type === 'step_started') attempt += 1;
    const phase = phaseAfter(event);
    open = phase ? { phase, from: at, attempt } : undefined;
  }
  if (open) segments.push({ ...open, to: end, open: true });
  return segments;
}

/** The timeline beside the graph: each step's attempts, waits and pauses on one time axis. */
function timelineView(run, steps, events) {
  const end = run.endedAt ? Date.parse(run.endedAt) : Date.now();
  const start = Date.parse(run.createdAt);
  const byStep = new Map();
  for (const event of events) {
    if (!event.stepId) continue;
    if (!byStep.has(event.stepId)) byStep.set(event.stepId, []);
    byStep.get(event.stepId).push(event);
  }
  const rowOf = (step, label) => {
    const own = byStep.get(step.id) ?? [];
    // A step inserted claimable tells no event of its own until it starts: it was queued from
    // its creation.
    const first = own.find((e) => e.to);
    const queuedFrom =
      first && first.type === 'step_started' && step.createdAt
        ? [{ type: 'step_inserted', to: 'available', at: step.createdAt }]
        : [];
    return {
      label,
      node: step.node,
      itemIndex: step.itemIndex,
      segments: segmentsOf([...queuedFrom, ...own], end),
    };
  };
  const nodes = steps.filter((st) => st.itemIndex === null);
  const itemsOf = new Map();
  for (const st of steps) {
    if (st.itemIndex === null) continue;
    if (!itemsOf.has(st.node)) itemsOf.set(st.node, []);
    itemsOf.get(st.node).push(st);
  }
  const W = 560;
  const labelW = 130;
  const rowH = 20;
  const plotW = W - labelW - 10;
  const scale = Math.max(1, end - start);
  const x = (t) => labelW + ((Math.min(Math.max(t, start), end) - start) / scale) * plotW;

  const rowSvg = (row, i) =>
    s(
      'g',
      {
        class: 'tl-row',
        'data-step-row': row.itemIndex === null ? row.node : `${row.node}[${row.itemIndex}]`,
      },
      s(
        'text',
        { x: labelW - 6, y: i * rowH + 14, 'text-anchor': 'end', class: 'tl-label' },
        clip(row.label, 18),
      ),
      row.segments.map((seg) => {
        const x1 = x(seg.from);
        const width = Math.max(1.5, x(seg.to) - x1);
        const what = `${PhaseNames[seg.phase]}${seg.phase === 'running' ? ` (attempt ${seg.attempt})` : ''}`;
        return s(
          'g',
          { class: `tl-seg tl-${seg.phase}`, 'data-phase': seg.phase, 'data-attempt': seg.attempt },
          s('rect', { x: x1, y: i * rowH + 3, width, height: rowH - 6, rx: 2 }),
          seg.phase === 'running' &&
            width > 22 &&
            s('text', { x: x1 + 3, y: i * rowH + 14, class: 'tl-attempt' }, `#${seg.attempt}`),
          s(
            'title',
            {},
            `${row.label}: ${what}, ${span(seg.to - seg.from)}${seg.open ? ' so far' : ''}`,
          ),
        );
      }),
    );

  const axis = (height) => {
    const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => start + f * scale);
    return s(
      'g',
      { class: 'axis' },
      ticks.map((t, n) =>
        s(
          'g',
          {},
          s('line', { x1: x(t), x2: x(t), y1: 0, y2: height, class: 'grid' }),
          s(
            'text',
            {
              x: x(t),
              y: height + 12,
              'text-anchor': n === 0 ? 'start' : n === 4 ? 'end' : 'middle',
            },
            `+${span(t - start)}`,
          ),
        ),
      ),
    );
  };
  const chart = (rows, id) => {
    const height = rows.length * rowH;
    return s(
      'svg',
      {
        viewBox: `0 0 ${W} ${height + 18}`,
        role: 'img',
        'aria-label': `Timeline of ${rows.length} step(s) over ${span(scale)}`,
        ...(id ? { id } : {}),
      },
      axis(height),
      rows.map(rowSvg),
    );
  };

  const rows = nodes.map((node) => {
    const items = itemsOf.get(node.node);
    if (!items) return rowOf(node, node.node);
    // A fan-out node's row: the node's own moves, summed up with its items' span.
    const itemRows = items.map((item) => rowOf(item, `${item.node}[${item.itemIndex}]`));
    const all = itemRows.flatMap((r) => r.segments);
    const row = rowOf(node, `${node.node} (${items.length})`);
    if (all.length > 0) {
      row.segments.push({
        phase: 'running',
        from: Math.min(...all.map((seg) => seg.from)),
        to: Math.max(...all.map((seg) => seg.to)),
        attempt: 1,
      });
    }
    row.items = itemRows;
    return row;
  });
  const legend = h(
    'ul',
    { class: 'tl-legend' },
    Object.entries(PhaseNames).map(([phase, name]) =>
      h(
        'li',
        {},
        s(
          'svg',
          { width: 22, height: 12, class: `tl-seg tl-${phase}` },
          s('rect', { x: 0, y: 1, width: 22, height: 10, rx: 2 }),
        ),
        name,
      ),
    ),
  );
  const fanOuts = rows.filter((r) => r.items);
  return h(
    'div',
    { class: 'card timeline', id: 'timeline' },
    chart(rows),
    legend,
    fanOuts.map((r) =>
      h(
        'details',
        { class: 'tl-items', 'data-fan-out': r.node },
        h(
          'summary',
          {},
          `${r.node}: ${r.items.length} items — ${summariseItems(itemsOf.get(r.node))}`,
        ),
        chart(r.items.slice(0, 200)),
        r.items.length > 200 &&
          h('p', { class: 'muted' }, `The first 200 of ${r.items.length} items.`),
      ),
    ),
  );
}

/** `3 completed, 1 running`: a fan-out's items by state. */
function summariseItems(items) {
  const counts = new Map();
  for (const item of items) counts.set(item.state, (counts.get(item.state) ?? 0) + 1);
  return [...counts.entries()].map(([state, n]) => `${n} ${state}`).join(', ');
}

// ---------------------------------------------------------------- limits

/** A rate limit's period as listed: a duration as given, milliseconds with their unit. */
const periodText = (period) => (typeof period === 'number' ? `${period}ms` : period);

/**
 * The flow limits: every concurrency cap with the kind's running steps and the ready steps it
 * holds back now (labelled AwaitingResource), and every rate limit, by kind.
 */
async function limitsPage() {
  const { concurrency, rate } = await api('/api/limits');
  const rows = [
    ...concurrency.map((l) => ({
      type: 'concurrency',
      kind: l.kind,
      allows: `${l.max} at once`,
      perKey: l.perKey,
      running: String(l.running),
      waiting: String(l.waiting),
    })),
    ...rate.map((l) => ({
      type: 'rate',
      kind: l.kind,
      allows: `${l.limit} per ${periodText(l.period)}`,
      perKey: l.perKey,
      running: '',
      waiting: '',
    })),
  ].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : a.type < b.type ? -1 : 1));
  return h(
    'section',
    { id: 'limits-page' },
    h('h1', {}, 'Limits'),
    h(
      'p',
      { class: 'muted' },
      'Concurrency caps and rate limits are stored in the database and obeyed by every worker. ' +
        'Waiting: ready steps a cap holds back now (per key under a per-key cap), labelled AwaitingResource.',
    ),
    rows.length === 0
      ? h('p', { class: 'muted' }, 'No limits set.')
      : h(
          'table',
          { id: 'limits-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Kind', 'Limit', 'Allows', 'Per key', 'Running', 'Waiting'].map((t) =>
                h('th', {}, t),
              ),
            ),
          ),
          h(
            'tbody',
            {},
            rows.map((r) =>
              h(
                'tr',
                { 'data-limit': `${r.type}:${r.kind}` },
                h('td', { class: 'mono' }, r.kind),
                h('td', {}, r.type),
                h('td', { 'data-field': 'allows' }, r.allows),
                h('td', { 'data-field': 'per-key' }, r.perKey ? 'yes' : 'no'),
                h('td', { 'data-field': 'running' }, r.running),
                h('td', { 'data-field': 'waiting' }, r.waiting),
              ),
            ),
          ),
        ),
  );
}

// ---------------------------------------------------------------- live updates

/**
 * Live updates: the server's event stream says when something moved, and the page reloads what
 * it shows (debounced). When the stream is unavailable the page polls instead.
 */
const live = {
  auto: false,
  timer: undefined,
  poller: undefined,
  status(text, cls) {
    const el = document.getElementById('live');
    el.textContent = text;
    el.className = `live ${cls}`;
  },
  changed() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (document.getElementById('confirm').open) return;
      this.auto = true;
      void refresh();
    }, 300);
  },
  poll() {
    if (this.poller) return;
    this.status('polling', 'poll');
    this.poller = setInterval(() => this.changed(), PollMs);
  },
  stopPolling() {
    clearInterval(this.poller);
    this.poller = undefined;
  },
  connect() {
    if (typeof EventSource === 'undefined') return this.poll();
    const source = new EventSource('/api/events/stream');
    source.addEventListener('ready', () => {
      this.stopPolling();
      this.status('live', 'on');
    });
    source.addEventListener('change', () => this.changed());
    source.addEventListener('unavailable', () => {
      source.close();
      this.poll();
    });
    // EventSource reconnects by itself; poll meanwhile so nothing is missed.
    source.addEventListener('error', () => this.poll());
  },
};

window.addEventListener('hashchange', () => {
  selectedNode = undefined;
  void refresh();
});
void refresh();
live.connect();
