// The overview (`#/overview`): run totals, queues and the per-minute charts.

import { api } from './api.js';
import { badge, h, span } from './dom.js';
import { lineChart } from './line-chart.js';

/** A kind's fair share: its keys with claimable steps and the most-starved key (whose oldest ready step is oldest). */
function fairShareCell(q) {
  if (!q.fairShare) return '';
  const f = q.fairShare;
  const keys = `${f.keys} ${f.keys === 1 ? 'key' : 'keys'}`;
  if (q.ready === 0) return keys;
  const who = f.starvedKeyless ? '(no key)' : f.starvedKey;
  return h(
    'span',
    {},
    `${keys}; most starved `,
    h('span', { class: 'mono', 'data-starved-key': who }, who),
    ' ',
    span(f.starvedAgeSeconds * 1000),
  );
}

/** A number that links to the list behind it. */
const figure = (value, href, label) =>
  href ? h('a', { href, class: 'figure', title: label }, String(value)) : String(value);

export async function overviewPage() {
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
      h('td', { 'data-col': 'fairShare' }, fairShareCell(q)),
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
                'Fair share',
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
