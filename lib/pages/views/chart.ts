import type { StatsDetail } from '../../stats/stats.ts';
import { html, type Html } from '../../text/html.ts';
import {
  chartGeometry,
  chartSeries as series,
  chartSizes as sizes,
  shortDay,
} from '../../../web/static/chart-geometry.js';
import { germanNumber } from '../../text/german.ts';

/**
 * The statistics chart as the front end draws it (web/static/markup/chart.js), from the same
 * geometry (web/static/chart-geometry.js): the inline SVG in both sizes (CSS shows the one that
 * fits), legend and table, element for element, so the drawn /stats and the front end's are one
 * layout and the page does not move when the front end takes over.
 * test/browser/no-script-more.test.ts compares the two.
 */

type Daily = StatsDetail['daily'];

/** One size of the chart, drawn from its geometry (as plot in chart.js). */
function plot(daily: Daily, size: string, width: number, height: number): Html {
  const chart = chartGeometry(daily, width, height);
  const titleId = `daily-chart-${size}`;
  const grid = chart.grid.map(
    ({ value, line, text }) =>
      html`<g class="chart-grid"><line x1="${line.x1}" x2="${line.x2}" y1="${line.y1}" y2="${line.y2}"></line><text x="${text.x}" y="${text.y}" text-anchor="end">${germanNumber(value)}</text></g>`,
  );
  const labels = chart.labels.map(
    (l) => html`<text class="chart-label" x="${l.x}" y="${l.y}" text-anchor="middle">${l.text}</text>`,
  );
  const lines = chart.lines.map(
    (line) =>
      html`<g class="chart-series chart-${line.key}"><polyline points="${line.points}"></polyline>${line.dots.map(
        (dot) =>
          html`<circle cx="${dot.cx}" cy="${dot.cy}" r="3"><title>${dot.day}: ${germanNumber(dot.value)} ${line.name}</title></circle>`,
      )}</g>`,
  );
  return html`<svg class="chart chart-${size}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${titleId}"><title id="${titleId}">${chart.title}</title>${grid}${labels}${lines}</svg>`;
}

/** The days as the chart in both sizes, its legend and the values as a table (folded: <details>). */
export function dailyChart(daily: Daily): Html {
  const legend = html`<ul class="chart-legend">${series.map(
    ([key, name]) => html`<li><span class="swatch chart-${key}" aria-hidden="true"></span>${name}</li>`,
  )}</ul>`;
  const table = html`<details class="chart-table"><summary>Werte als Tabelle</summary><table><thead><tr><th scope="col">Tag</th>${series.map(
    ([, name]) => html`<th scope="col">${name}</th>`,
  )}</tr></thead><tbody>${daily.map(
    (d) =>
      html`<tr><th scope="row"><time datetime="${d.day}">${shortDay(d.day)}</time></th>${series.map(
        ([key]) => html`<td>${germanNumber(d[key])}</td>`,
      )}</tr>`,
  )}</tbody></table></details>`;
  return html`<figure class="chart-figure">${sizes.map(([size, width, height]) => plot(daily, size, width, height))}<figcaption>${legend}</figcaption>${table}</figure>`;
}
