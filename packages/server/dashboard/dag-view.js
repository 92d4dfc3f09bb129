// A run's graph: nodes in layers by their dependencies, coloured by state.

import { clip, h, s } from './dom.js';

/** The nodes of a run (item tasks folded into their fan-out node), laid out in layers. */
function layoutDag(steps) {
  const nodes = steps.filter((step) => step.itemIndex === null);
  const byName = new Map(nodes.map((n) => [n.node, n]));
  const layer = new Map();
  const layerOf = (name, seen = new Set()) => {
    if (layer.has(name)) return layer.get(name);
    if (seen.has(name)) return 0;
    seen.add(name);
    const deps = (byName.get(name)?.dependsOn ?? []).filter((d) => byName.has(d));
    const value = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => layerOf(d, seen)));
    layer.set(name, value);
    return value;
  };
  const columns = [];
  for (const n of nodes) {
    const l = layerOf(n.node);
    (columns[l] ??= []).push(n);
  }
  const W = 170;
  const H = 50;
  const GapX = 60;
  const GapY = 22;
  const pos = new Map();
  columns.forEach((column, x) =>
    column.forEach((n, y) => pos.set(n.node, { x: 20 + x * (W + GapX), y: 20 + y * (H + GapY) })),
  );
  const width = 40 + columns.length * (W + GapX) - GapX;
  const height = 40 + Math.max(1, ...columns.map((c) => c.length)) * (H + GapY) - GapY;
  return { nodes, pos, W, H, width, height };
}

export function dagView(steps, selected, onSelect) {
  const { nodes, pos, W, H, width, height } = layoutDag(steps);
  const items = new Map();
  for (const step of steps) {
    if (step.itemIndex === null) continue;
    const count = items.get(step.node) ?? { done: 0, all: 0 };
    count.all += 1;
    if (step.state === 'completed') count.done += 1;
    items.set(step.node, count);
  }
  const edges = [];
  for (const n of nodes) {
    const to = pos.get(n.node);
    for (const dep of n.dependsOn) {
      const from = pos.get(dep);
      if (!from) continue;
      const x1 = from.x + W;
      const y1 = from.y + H / 2;
      const x2 = to.x;
      const y2 = to.y + H / 2;
      const mid = (x1 + x2) / 2;
      edges.push(
        s('path', {
          class: 'edge',
          d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`,
          'marker-end': 'url(#arrow)',
        }),
      );
    }
  }
  const boxes = nodes.map((n) => {
    const p = pos.get(n.node);
    const count = items.get(n.node);
    const sub = count ? `${n.state} · ${count.done}/${count.all} items` : n.state;
    return s(
      'g',
      {
        class: n.node === selected ? 'node selected' : 'node',
        'data-node': n.node,
        'data-state': n.state,
        onclick: () => onSelect(n.node),
      },
      s('title', {}, `${n.node} (${n.nodeType}): ${n.state}`),
      s('rect', {
        x: p.x,
        y: p.y,
        width: W,
        height: H,
        rx: 8,
        fill: `var(--${colourOf(n.state)})`,
      }),
      s('text', { x: p.x + 10, y: p.y + 20, 'font-weight': 600 }, clip(n.node, 22)),
      s('text', { x: p.x + 10, y: p.y + 38 }, clip(sub, 26)),
    );
  });
  return h(
    'div',
    { class: 'dag', id: 'dag' },
    s(
      'svg',
      { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'run graph' },
      s(
        'defs',
        {},
        s(
          'marker',
          {
            id: 'arrow',
            viewBox: '0 0 10 10',
            refX: 10,
            refY: 5,
            markerWidth: 6,
            markerHeight: 6,
            orient: 'auto-start-reverse',
          },
          s('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#94a3b8' }),
        ),
      ),
      edges,
      boxes,
    ),
  );
}

function colourOf(state) {
  if (state.startsWith('waiting_')) return 'waiting';
  if (state === 'discarded') return 'failed';
  return state;
}
