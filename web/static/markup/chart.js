// The statistics chart: daily impressions and visitors as two lines in an inline SVG.
import { h, svg } from '../dom.js';
import { number } from '../format.js';
import { chartGeometry, chartSeries as series, chartSizes as sizes, shortDay } from '../chart-geometry.js';

/**
 * One size of the chart, drawn from its geometry.
 * @param {Api.StatsDetail['daily']} daily
 * @param {'wide' | 'narrow'} size
 * @param {number} width
 * @param {number} height
 */
function plot(daily, size, width, height) {
  const chart = chartGeometry(daily, width, height);
  const titleId = `daily-chart-${size}`;
  return svg(
    'svg',
    { class: `chart chart-${size}`, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': titleId },
    svg('title', { id: titleId }, chart.title),
    chart.grid.map((g) =>
      svg(
        'g',
        { class: 'chart-grid' },
        svg('line', g.line),
        svg('text', { ...g.text, 'text-anchor': 'end' }, number(g.value)),
      ),
    ),
    chart.labels.map((l) => svg('text', { class: 'chart-label', x: l.x, y: l.y, 'text-anchor': 'middle' }, l.text)),
    chart.lines.map((line) =>
      svg(
        'g',
        { class: `chart-series chart-${line.key}` },
        svg('polyline', { points: line.points }),
        line.dots.map((dot) =>
          svg(
            'circle',
            { cx: dot.cx, cy: dot.cy, r: 3 },
            svg('title', {}, `${dot.day}: ${number(dot.value)} ${line.name}`),
          ),
        ),
      ),
    ),
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
