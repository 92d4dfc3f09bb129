// The dialogs of a run's page that take input: forcing a node, sending a signal.

import { act } from './actions.js';
import { api } from './api.js';
import { h } from './dom.js';

/**
 * Moves a node by hand (`POST .../nodes/:node/transition` with `force`): to completed with an
 * output, discarded or cancelled, with the operator's reason, which its event records.
 */
export function forceDialog(path, node) {
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

export function signalDialog(path) {
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
