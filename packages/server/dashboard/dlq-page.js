// The dead-letter queue (`#/dlq`): discarded steps and their redrive.

import { act } from './actions.js';
import { api } from './api.js';
import { h, shortId, time } from './dom.js';

export async function dlqPage(params) {
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
