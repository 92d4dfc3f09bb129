// Concurrency caps, rate limits and fair shares (`#/limits`).

import { api } from './api.js';
import { h } from './dom.js';

/** A rate limit's period as listed: a duration as given, milliseconds with their unit. */
const periodText = (period) => (typeof period === 'number' ? `${period}ms` : period);

/** A fair share's weights as listed: `key ×weight`, by key; every other key weighs 1. */
const weightsText = (weights) => {
  const named = Object.entries(weights).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return named.length === 0
    ? 'every key 1'
    : `${named.map(([key, w]) => `${key} ×${w}`).join(', ')}; others 1`;
};

/** The kinds under fair share: their weights and how many keys have claimable steps now. */
function fairShareSection(fairShares) {
  return [
    h('h2', {}, 'Fair share'),
    h(
      'p',
      { class: 'muted' },
      'Claims of these kinds take the concurrency keys with claimable steps in turn, each key ' +
        'as many steps a turn as its weight; steps without a key form one group of weight 1.',
    ),
    fairShares.length === 0
      ? h('p', { class: 'muted', id: 'fair-share-none' }, 'No kind is under fair share.')
      : h(
          'table',
          { id: 'fair-share-table' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Kind', 'Weights', 'Keys with claimable steps'].map((t) => h('th', {}, t)),
            ),
          ),
          h(
            'tbody',
            {},
            fairShares.map((f) =>
              h(
                'tr',
                { 'data-fair-share': f.kind },
                h('td', { class: 'mono' }, f.kind),
                h('td', { 'data-field': 'weights' }, weightsText(f.weights)),
                h('td', { 'data-field': 'keys' }, String(f.keys)),
              ),
            ),
          ),
        ),
  ];
}

/**
 * The flow limits: every concurrency cap with the kind's running steps and the ready steps it
 * holds back now (labelled AwaitingResource), every rate limit, by kind, and every kind under
 * fair share with its weights.
 */
export async function limitsPage() {
  const [{ concurrency, rate }, { fairShares }] = await Promise.all([
    api('/api/limits'),
    api('/api/fair-share'),
  ]);
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
    ...fairShareSection(fairShares),
  );
}
