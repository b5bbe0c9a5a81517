// The statistics chart: daily impressions and visitors as two lines in an inline SVG.
import { h, svg } from '../dom.js';
import { number } from '../format.js';

const pad = { left: 48, right: 24, top: 16, bottom: 40 };

/**
 * "2026-03-07" → "7.3."
 * @param {string} day
 */
export function shortDay(day) {
  const [, m, d] = day.split('-');
  return `${Number(d)}.${Number(m)}.`;
}

/**
 * Whole-number steps of 1, 2 or 5 × 10^k, about five of them up to the largest value.
 * @param {number} max
 */
export function axisTicks(max) {
  const raw = Math.max(1, max) / 5;
  let base = 1;
  while (base * 5 < raw) base *= 10;
  // 5 × base is at least raw (the loop above), so one of the three always fits.
  const step = /** @type {number} */ ([1, 2, 5].map((m) => m * base).find((s) => s >= raw));
  return Array.from({ length: Math.ceil(Math.max(1, max) / step) + 1 }, (_, i) => i * step);
}

/** @type {['impressions' | 'visitors', string][]} */
const series = [
  ['impressions', 'Seitenaufrufe'],
  ['visitors', 'Besucher'],
];

/**
 * The two sizes the chart is drawn in; CSS shows the one that fits (app.css), so its text stays
 * readable on a phone as on a desktop, and the server draws the same chart without asking the
 * screen (lib/pages/views/chart.ts).
 * @type {['wide' | 'narrow', number, number][]}
 */
const sizes = [
  ['wide', 640, 260],
  ['narrow', 360, 240],
];

/**
 * One size of the chart: the grid with its values, a day label every 7 days, the two lines.
 * @param {Api.StatsDetail['daily']} daily
 * @param {'wide' | 'narrow'} size
 * @param {number} width
 * @param {number} height
 */
function plot(daily, size, width, height) {
  const ticks = axisTicks(Math.max(...daily.map((d) => Math.max(d.impressions, d.visitors)), 0));
  const top = /** @type {number} */ (ticks.at(-1)); // axisTicks gives at least two
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  /** @param {number} i */
  const x = (i) => pad.left + (daily.length > 1 ? (i / (daily.length - 1)) * plotW : plotW / 2);
  /** @param {number} v */
  const y = (v) => pad.top + plotH - (v / top) * plotH;
  const titleId = `daily-chart-${size}`;
  const grid = ticks.map((v) =>
    svg(
      'g',
      { class: 'chart-grid' },
      svg('line', { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v) }),
      svg('text', { x: pad.left - 8, y: y(v) + 4, 'text-anchor': 'end' }, number(v)),
    ),
  );
  // A label every 7 days, counted back from today so the last two never collide.
  const labels = daily.map((d, i) =>
    (daily.length - 1 - i) % 7 === 0
      ? svg(
          'text',
          { class: 'chart-label', x: x(i), y: height - pad.bottom + 20, 'text-anchor': 'middle' },
          shortDay(d.day),
        )
      : null,
  );
  const lines = series.map(([key, name]) =>
    svg(
      'g',
      { class: `chart-series chart-${key}` },
      svg('polyline', { points: daily.map((d, i) => `${x(i).toFixed(1)},${y(d[key]).toFixed(1)}`).join(' ') }),
      daily.map((d, i) =>
        svg(
          'circle',
          { cx: x(i).toFixed(1), cy: y(d[key]).toFixed(1), r: 3 },
          svg('title', {}, `${shortDay(d.day)}: ${number(d[key])} ${name}`),
        ),
      ),
    ),
  );
  return svg(
    'svg',
    { class: `chart chart-${size}`, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': titleId },
    svg(
      'title',
      { id: titleId },
      `Seitenaufrufe und Besucher pro Tag, ${shortDay(daily[0]?.day ?? '--')} bis ${shortDay(daily.at(-1)?.day ?? '--')}`,
    ),
    grid,
    labels,
    lines,
  );
}

/**
 * The chart for `daily` ([{day, impressions, visitors}], oldest first) in both sizes, with its
 * legend and a data table; the server draws the same markup (lib/pages/views/chart.ts).
 * @param {Api.StatsDetail['daily']} daily
 */
export function dailyChart(daily) {
  const legend = h(
    'ul',
    { class: 'chart-legend' },
    series.map(([key, name]) => h('li', {}, h('span', { class: `swatch chart-${key}`, 'aria-hidden': 'true' }), name)),
  );
  const table = h(
    'details',
    { class: 'chart-table' },
    h('summary', {}, 'Werte als Tabelle'),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Tag'),
          series.map(([, name]) => h('th', { scope: 'col' }, name)),
        ),
      ),
      h(
        'tbody',
        {},
        daily.map((d) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, h('time', { datetime: d.day }, shortDay(d.day))),
            series.map(([key]) => h('td', {}, number(d[key]))),
          ),
        ),
      ),
    ),
  );
  return h(
    'figure',
    { class: 'chart-figure' },
    sizes.map(([size, width, height]) => plot(daily, size, width, height)),
    h('figcaption', {}, legend),
    table,
  );
}
