// The statistics chart: daily impressions and visitors as two lines in an inline SVG.
import { h, svg, uid } from '../dom.js';
import { number } from '../format.js';

const width = 640;
const height = 260;
const pad = { left: 52, right: 16, top: 16, bottom: 40 };

/** "2026-03-07" → "7.3." */
export function shortDay(day) {
  const [, m, d] = day.split('-');
  return `${Number(d)}.${Number(m)}.`;
}

/** A round upper bound for the y axis: 1, 2, 5, 10, 20, 50 … (at least 4, so ticks stay whole numbers). */
function niceMax(value) {
  let step = 1;
  while (step * 10 <= value) step *= 10;
  for (const m of [1, 2, 5, 10]) if (m * step >= value) return Math.max(4, m * step);
  return Math.max(4, 10 * step);
}

const series = [
  ['impressions', 'Seitenaufrufe'],
  ['visitors', 'Besucher'],
];

/** The chart for `daily` ([{day, impressions, visitors}], oldest first) with its legend and a data table. */
export function dailyChart(daily) {
  const top = niceMax(Math.max(1, ...daily.map((d) => Math.max(d.impressions, d.visitors))));
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const x = (i) => pad.left + (daily.length > 1 ? (i / (daily.length - 1)) * plotW : plotW / 2);
  const y = (v) => pad.top + plotH - (v / top) * plotH;
  const titleId = uid('chart');
  const grid = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = Math.round(top * f);
    return svg('g', { class: 'chart-grid' },
      svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v) }),
      svg('text', { x: pad.left - 8, y: y(v) + 4, 'text-anchor': 'end' }, number(v)));
  });
  const labels = daily.map((d, i) => (i % 7 === 0 || i === daily.length - 1)
    ? svg('text', { class: 'chart-label', x: x(i), y: height - pad.bottom + 20, 'text-anchor': 'middle' }, shortDay(d.day))
    : null);
  const lines = series.map(([key, name]) => svg('g', { class: `chart-series chart-${key}` },
    svg('polyline', { points: daily.map((d, i) => `${x(i).toFixed(1)},${y(d[key]).toFixed(1)}`).join(' ') }),
    daily.map((d, i) => svg('circle', { cx: x(i).toFixed(1), cy: y(d[key]).toFixed(1), r: 3 },
      svg('title', {}, `${shortDay(d.day)}: ${number(d[key])} ${name}`)))));
  const chart = svg('svg', { class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': titleId },
    svg('title', { id: titleId }, `Seitenaufrufe und Besucher pro Tag, ${shortDay(daily[0]?.day ?? '--')} bis ${shortDay(daily.at(-1)?.day ?? '--')}`),
    grid, labels, lines);
  const legend = h('ul', { class: 'chart-legend' }, series.map(([key, name]) => h('li', {}, h('span', { class: `swatch chart-${key}`, 'aria-hidden': 'true' }), name)));
  const table = h('details', { class: 'chart-table' },
    h('summary', {}, 'Werte als Tabelle'),
    h('table', {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Tag'), series.map(([, name]) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, daily.map((d) => h('tr', {}, h('th', { scope: 'row' }, shortDay(d.day)), series.map(([key]) => h('td', {}, number(d[key]))))))));
  return h('figure', { class: 'chart-figure' }, chart, h('figcaption', {}, legend), table);
}
