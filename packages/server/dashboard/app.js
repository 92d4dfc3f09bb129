// Cyclone's dashboard: a single page of ES modules with no dependencies and no build step,
// served by @cyclone/server. This module renders the page for the hash route and keeps it live.

import { describeError } from './api.js';
import { dlqPage } from './dlq-page.js';
import { h, view } from './dom.js';
import { limitsPage } from './limits-page.js';
import { overviewPage } from './overview-page.js';
import { currentRoute, refresh, setRenderer } from './route.js';
import { forgetSelection, runPage } from './run-page.js';
import { runsPage } from './runs-page.js';
import { schedulesPage } from './schedules-page.js';
import { workersPage } from './workers-page.js';

const PollMs = 3000;

/** Renders the page the hash names into the main element. */
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
  forgetSelection();
  void refresh();
});
setRenderer(renderNow);
void refresh();
live.connect();
