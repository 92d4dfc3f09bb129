// The overview's per-minute line charts, drawn as SVG.

import { h, s } from './dom.js';

/** A round upper bound for an axis: 1, 2 or 5 times a power of ten, at least `max`. */
function niceMax(max) {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

const clock = (value) =>
  new Date(value).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/**
 * A line chart of per-minute values as inline SVG: labelled axes, one line per series told apart
 * by its stroke (solid, dashed) and its marker (circle, square) as well as its colour, a legend
 * naming them, and each point's value on hover.
 */
export function lineChart({ id, title, unit, minutes, series }) {
  const W = 560;
  const H = 200;
  const left = 52;
  const right = 12;
  const top = 14;
  const bottom = 34;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const values = series.flatMap((se) => minutes.map((m) => m[se.key] ?? 0));
  const yMax = niceMax(Math.max(0, ...values));
  const x = (i) => left + (minutes.length <= 1 ? 0 : (i / (minutes.length - 1)) * plotW);
  const y = (v) => top + plotH - (v / yMax) * plotH;
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = yMax * f;
    return s(
      'g',
      { class: 'tick' },
      s('line', { x1: left, x2: W - right, y1: y(v), y2: y(v), class: 'grid' }),
      s(
        'text',
        { x: left - 6, y: y(v) + 4, 'text-anchor': 'end' },
        Number.isInteger(v) ? String(v) : v.toFixed(1),
      ),
    );
  });
  const xTicks = [];
  for (let i = 0; i < minutes.length; i += 15) xTicks.push(i);
  if (minutes.length > 0 && xTicks[xTicks.length - 1] !== minutes.length - 1) {
    xTicks.push(minutes.length - 1);
  }
  const xLabels = xTicks.map((i) =>
    s('text', { x: x(i), y: H - bottom + 16, 'text-anchor': 'middle' }, clock(minutes[i].minute)),
  );
  const lines = series.map((se, n) => {
    const points = minutes
      .map((m, i) => (m[se.key] === null || m[se.key] === undefined ? null : [i, m[se.key]]))
      .filter(Boolean);
    const marker = (i, v) => {
      const label = `${clock(minutes[i].minute)} ${se.name}: ${Math.round(v * 10) / 10} ${unit}`;
      return n === 0
        ? s('circle', { cx: x(i), cy: y(v), r: 2.5 }, s('title', {}, label))
        : s('rect', { x: x(i) - 2.5, y: y(v) - 2.5, width: 5, height: 5 }, s('title', {}, label));
    };
    return s(
      'g',
      { class: `series series-${n} ${se.style}`, 'data-series': se.name },
      s('polyline', {
        points: points.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' '),
      }),
      points.map(([i, v]) => marker(i, v)),
    );
  });
  const legend = series.map((se, n) =>
    s(
      'g',
      {
        class: `series series-${n} ${se.style}`,
        transform: `translate(${left + n * 110}, ${H - 6})`,
      },
      s('line', { x1: 0, x2: 22, y1: -4, y2: -4 }),
      n === 0
        ? s('circle', { cx: 11, cy: -4, r: 2.5 })
        : s('rect', { x: 8.5, y: -6.5, width: 5, height: 5 }),
      s('text', { x: 28, y: 0, class: 'legend' }, se.name),
    ),
  );
  return h(
    'figure',
    { class: 'card chart', id },
    h('figcaption', {}, title),
    s(
      'svg',
      {
        viewBox: `0 0 ${W} ${H}`,
        role: 'img',
        'aria-label': `${title}, the last ${minutes.length} minutes`,
      },
      s('g', { class: 'axis' }, grid, xLabels),
      s('line', { x1: left, x2: left, y1: top, y2: top + plotH, class: 'axis-line' }),
      s('line', { x1: left, x2: W - right, y1: top + plotH, y2: top + plotH, class: 'axis-line' }),
      s(
        'text',
        {
          x: 12,
          y: top + plotH / 2,
          class: 'axis-title',
          transform: `rotate(-90 12 ${top + plotH / 2})`,
          'text-anchor': 'middle',
        },
        unit,
      ),
      lines,
      legend,
    ),
  );
}
