// Cron schedules (`#/schedules`): their next ticks and fires, pause and resume.

import { act } from './actions.js';
import { api } from './api.js';
import { h, shortId, time } from './dom.js';

export async function schedulesPage() {
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
