// Workers and the scheduler's leader (`#/workers`).

import { api } from './api.js';
import { ago, h, shortId } from './dom.js';

export async function workersPage(params) {
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
