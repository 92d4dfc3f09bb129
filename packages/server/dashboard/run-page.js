// One run (`#/runs/:id`): its counters, graph, timeline, steps, events and actions.

import { act } from './actions.js';
import { ApiError, api, describeError } from './api.js';
import { dagView } from './dag-view.js';
import { TerminalRunStates, badge, h, json, time } from './dom.js';
import { refresh } from './route.js';
import { forceDialog, signalDialog } from './run-dialogs.js';
import { timelineView } from './timeline.js';

let selectedNode;

/** Forgets the node selected on a run's page, when the page shown changes. */
export function forgetSelection() {
  selectedNode = undefined;
}

export async function runPage(runId) {
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
