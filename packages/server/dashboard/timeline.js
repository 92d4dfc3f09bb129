// A run's timeline: each step's attempts, waits and pauses on one time axis.

import { clip, h, s, span } from './dom.js';

/** What a step was doing after an event that moved it to `to`, or null when it is not drawn. */
function phaseAfter(event) {
  switch (event.to) {
    case 'available':
      if (event.type === 'step_retry_scheduled') return 'backoff';
      if (event.type === 'step_snoozed') return 'snoozed';
      return 'queued';
    case 'running':
      return 'running';
    case 'waiting_signal':
    case 'waiting_timer':
    case 'waiting_child':
      return 'waiting';
    case 'paused':
      return 'paused';
    default:
      return null;
  }
}

const PhaseNames = {
  queued: 'queued',
  running: 'running',
  backoff: 'retry backoff',
  snoozed: 'snoozed',
  waiting: 'waiting',
  paused: 'paused',
};

/**
 * The segments of one step's life from its events: each event that moves the step starts a
 * segment of what it does next, until the next such event (or `end` for the one still open).
 */
function segmentsOf(events, end) {
  const segments = [];
  let open;
  let attempt = 0;
  for (const event of events) {
    if (!event.to) continue;
    const at = Date.parse(event.at);
    if (open) segments.push({ ...open, to: at });
    if (event.type === 'step_started') attempt += 1;
    const phase = phaseAfter(event);
    open = phase ? { phase, from: at, attempt } : undefined;
  }
  if (open) segments.push({ ...open, to: end, open: true });
  return segments;
}

/** The timeline beside the graph: each step's attempts, waits and pauses on one time axis. */
export function timelineView(run, steps, events) {
  const end = run.endedAt ? Date.parse(run.endedAt) : Date.now();
  const start = Date.parse(run.createdAt);
  const byStep = new Map();
  for (const event of events) {
    if (!event.stepId) continue;
    if (!byStep.has(event.stepId)) byStep.set(event.stepId, []);
    byStep.get(event.stepId).push(event);
  }
  const rowOf = (step, label) => {
    const own = byStep.get(step.id) ?? [];
    // A step inserted claimable tells no event of its own until it starts: it was queued from
    // its creation.
    const first = own.find((e) => e.to);
    const queuedFrom =
      first && first.type === 'step_started' && step.createdAt
        ? [{ type: 'step_inserted', to: 'available', at: step.createdAt }]
        : [];
    return {
      label,
      node: step.node,
      itemIndex: step.itemIndex,
      segments: segmentsOf([...queuedFrom, ...own], end),
    };
  };
  const nodes = steps.filter((st) => st.itemIndex === null);
  const itemsOf = new Map();
  for (const st of steps) {
    if (st.itemIndex === null) continue;
    if (!itemsOf.has(st.node)) itemsOf.set(st.node, []);
    itemsOf.get(st.node).push(st);
  }
  const W = 560;
  const labelW = 130;
  const rowH = 20;
  const plotW = W - labelW - 10;
  const scale = Math.max(1, end - start);
  const x = (t) => labelW + ((Math.min(Math.max(t, start), end) - start) / scale) * plotW;

  const rowSvg = (row, i) =>
    s(
      'g',
      {
        class: 'tl-row',
        'data-step-row': row.itemIndex === null ? row.node : `${row.node}[${row.itemIndex}]`,
      },
      s(
        'text',
        { x: labelW - 6, y: i * rowH + 14, 'text-anchor': 'end', class: 'tl-label' },
        clip(row.label, 18),
      ),
      row.segments.map((seg) => {
        const x1 = x(seg.from);
        const width = Math.max(1.5, x(seg.to) - x1);
        const what = `${PhaseNames[seg.phase]}${seg.phase === 'running' ? ` (attempt ${seg.attempt})` : ''}`;
        return s(
          'g',
          { class: `tl-seg tl-${seg.phase}`, 'data-phase': seg.phase, 'data-attempt': seg.attempt },
          s('rect', { x: x1, y: i * rowH + 3, width, height: rowH - 6, rx: 2 }),
          seg.phase === 'running' &&
            width > 22 &&
            s('text', { x: x1 + 3, y: i * rowH + 14, class: 'tl-attempt' }, `#${seg.attempt}`),
          s(
            'title',
            {},
            `${row.label}: ${what}, ${span(seg.to - seg.from)}${seg.open ? ' so far' : ''}`,
          ),
        );
      }),
    );

  const axis = (height) => {
    const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => start + f * scale);
    return s(
      'g',
      { class: 'axis' },
      ticks.map((t, n) =>
        s(
          'g',
          {},
          s('line', { x1: x(t), x2: x(t), y1: 0, y2: height, class: 'grid' }),
          s(
            'text',
            {
              x: x(t),
              y: height + 12,
              'text-anchor': n === 0 ? 'start' : n === 4 ? 'end' : 'middle',
            },
            `+${span(t - start)}`,
          ),
        ),
      ),
    );
  };
  const chart = (rows, id) => {
    const height = rows.length * rowH;
    return s(
      'svg',
      {
        viewBox: `0 0 ${W} ${height + 18}`,
        role: 'img',
        'aria-label': `Timeline of ${rows.length} step(s) over ${span(scale)}`,
        ...(id ? { id } : {}),
      },
      axis(height),
      rows.map(rowSvg),
    );
  };

  const rows = nodes.map((node) => {
    const items = itemsOf.get(node.node);
    if (!items) return rowOf(node, node.node);
    // A fan-out node's row: the node's own moves, summed up with its items' span.
    const itemRows = items.map((item) => rowOf(item, `${item.node}[${item.itemIndex}]`));
    const all = itemRows.flatMap((r) => r.segments);
    const row = rowOf(node, `${node.node} (${items.length})`);
    if (all.length > 0) {
      row.segments.push({
        phase: 'running',
        from: Math.min(...all.map((seg) => seg.from)),
        to: Math.max(...all.map((seg) => seg.to)),
        attempt: 1,
      });
    }
    row.items = itemRows;
    return row;
  });
  const legend = h(
    'ul',
    { class: 'tl-legend' },
    Object.entries(PhaseNames).map(([phase, name]) =>
      h(
        'li',
        {},
        s(
          'svg',
          { width: 22, height: 12, class: `tl-seg tl-${phase}` },
          s('rect', { x: 0, y: 1, width: 22, height: 10, rx: 2 }),
        ),
        name,
      ),
    ),
  );
  const fanOuts = rows.filter((r) => r.items);
  return h(
    'div',
    { class: 'card timeline', id: 'timeline' },
    chart(rows),
    legend,
    fanOuts.map((r) =>
      h(
        'details',
        { class: 'tl-items', 'data-fan-out': r.node },
        h(
          'summary',
          {},
          `${r.node}: ${r.items.length} items — ${summariseItems(itemsOf.get(r.node))}`,
        ),
        chart(r.items.slice(0, 200)),
        r.items.length > 200 &&
          h('p', { class: 'muted' }, `The first 200 of ${r.items.length} items.`),
      ),
    ),
  );
}

/** `3 completed, 1 running`: a fan-out's items by state. */
function summariseItems(items) {
  const counts = new Map();
  for (const item of items) counts.set(item.state, (counts.get(item.state) ?? 0) + 1);
  return [...counts.entries()].map(([state, n]) => `${n} ${state}`).join(', ');
}
