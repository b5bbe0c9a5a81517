import type { StatsDetail } from '../../stats/stats.ts';
import { html, type Html } from '../html.ts';
import { germanNumber } from './format.ts';

/**
 * The statistics chart as the front end draws it (web/static/components/chart.js): the same
 * inline SVG in both sizes (CSS shows the one that fits), legend and table, element for element and
 * attribute for attribute, so the drawn /stats and the front end's are one layout and the page does
 * not move when the front end takes over. test/browser/no-script-more.test.ts compares the two.
 */

type Daily = StatsDetail['daily'];

const pad = { left: 48, right: 24, top: 16, bottom: 40 };

/** The sizes, as `sizes` in chart.js. */
const sizes: ['wide' | 'narrow', number, number][] = [
  ['wide', 640, 260],
  ['narrow', 360, 240],
];

const series: ['impressions' | 'visitors', string][] = [
  ['impressions', 'Seitenaufrufe'],
  ['visitors', 'Besucher'],
];

/** "2026-03-07" → "7.3." */
function shortDay(day: string): string {
  const [, m, d] = day.split('-');
  return `${Number(d)}.${Number(m)}.`;
}

/** Whole-number steps of 1, 2 or 5 × 10^k, about five of them up to the largest value (axisTicks in chart.js). */
function axisTicks(max: number): number[] {
  const raw = Math.max(1, max) / 5;
  let base = 1;
  while (base * 5 < raw) base *= 10;
  const step = [1, 2, 5].map((m) => m * base).find((s) => s >= raw)!;
  return Array.from({ length: Math.ceil(Math.max(1, max) / step) + 1 }, (_, i) => i * step);
}

function plot(daily: Daily, size: string, width: number, height: number): Html {
  const ticks = axisTicks(Math.max(...daily.map((d) => Math.max(d.impressions, d.visitors)), 0));
  const top = ticks.at(-1)!;
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const x = (i: number) => pad.left + (daily.length > 1 ? (i / (daily.length - 1)) * plotW : plotW / 2);
  const y = (v: number) => pad.top + plotH - (v / top) * plotH;
  const titleId = `daily-chart-${size}`;
  const grid = ticks.map(
    (v) =>
      html`<g class="chart-grid"><line x1="${pad.left}" x2="${width - pad.right}" y1="${y(v)}" y2="${y(v)}"></line><text x="${pad.left - 8}" y="${y(v) + 4}" text-anchor="end">${germanNumber(v)}</text></g>`,
  );
  const labels = daily.map((d, i) =>
    (daily.length - 1 - i) % 7 === 0
      ? html`<text class="chart-label" x="${x(i)}" y="${height - pad.bottom + 20}" text-anchor="middle">${shortDay(d.day)}</text>`
      : null,
  );
  const lines = series.map(
    ([key, name]) =>
      html`<g class="chart-series chart-${key}"><polyline points="${daily.map((d, i) => `${x(i).toFixed(1)},${y(d[key]).toFixed(1)}`).join(' ')}"></polyline>${daily.map(
        (d, i) =>
          html`<circle cx="${x(i).toFixed(1)}" cy="${y(d[key]).toFixed(1)}" r="3"><title>${shortDay(d.day)}: ${germanNumber(d[key])} ${name}</title></circle>`,
      )}</g>`,
  );
  const span = `${shortDay(daily[0]?.day ?? '--')} bis ${shortDay(daily.at(-1)?.day ?? '--')}`;
  return html`<svg class="chart chart-${size}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${titleId}"><title id="${titleId}">Seitenaufrufe und Besucher pro Tag, ${span}</title>${grid}${labels}${lines}</svg>`;
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
