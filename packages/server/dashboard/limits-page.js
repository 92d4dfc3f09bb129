// Concurrency caps and rate limits (`#/limits`).

import { api } from './api.js';
import { h } from './dom.js';

/** A rate limit's period as listed: a duration as given, milliseconds with their unit. */
const periodText = (period) => (typeof period === 'number' ? `${period}ms` : period);

/**
 * The flow limits: every concurrency cap with the kind's running steps and the ready steps it
 * holds back now (labelled AwaitingResource), and every rate limit, by kind.
 */
export async function limitsPage() {
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
