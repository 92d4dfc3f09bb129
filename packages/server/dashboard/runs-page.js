// The runs list (`#/runs`): filters, search and pages.

import { ApiError, api } from './api.js';
import { RunStates, UuidPattern, ago, badge, duration, h, view } from './dom.js';
import { go } from './route.js';

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

export async function runsPage(params) {
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
