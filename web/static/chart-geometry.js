// The statistics chart's geometry: where its grid, labels, lines and points go. Pure data, no DOM,
// so the server (lib/pages/views/chart.ts) and the front end (markup/chart.js) draw the same
// chart from one source and the page does not move when the front end takes over.

/** @typedef {{ day: string, impressions: number, visitors: number }} ChartDay */
/** @typedef {'impressions' | 'visitors'} ChartSeriesKey */

const pad = { left: 48, right: 24, top: 16, bottom: 40 };

/**
 * The two sizes the chart is drawn in; CSS shows the one that fits (app.css), so its text stays
 * readable on a phone as on a desktop, and the server draws it without asking the screen.
 * @type {['wide' | 'narrow', number, number][]}
 */
export const chartSizes = [
  ['wide', 640, 260],
  ['narrow', 360, 240],
];

/** @type {[ChartSeriesKey, string][]} */
export const chartSeries = [
  ['impressions', 'Seitenaufrufe'],
  ['visitors', 'Besucher'],
];

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

/**
 * One size of the chart as positions: the grid lines with their values, a day label every 7 days
 * (counted back from today, so the last two never collide), each series' line and points.
 * @param {ChartDay[]} daily oldest first
 * @param {number} width
 * @param {number} height
 */
export function chartGeometry(daily, width, height) {
  const ticks = axisTicks(Math.max(...daily.map((d) => Math.max(d.impressions, d.visitors)), 0));
  const top = /** @type {number} */ (ticks.at(-1)); // axisTicks gives at least two
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  /** @param {number} i */
  const x = (i) => pad.left + (daily.length > 1 ? (i / (daily.length - 1)) * plotW : plotW / 2);
  /** @param {number} v */
  const y = (v) => pad.top + plotH - (v / top) * plotH;
  return {
    title: `Seitenaufrufe und Besucher pro Tag, ${shortDay(daily[0]?.day ?? '--')} bis ${shortDay(daily.at(-1)?.day ?? '--')}`,
    grid: ticks.map((value) => ({
      value,
      line: { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value) },
      text: { x: pad.left - 8, y: y(value) + 4 },
    })),
    labels: daily.flatMap((d, i) =>
      (daily.length - 1 - i) % 7 === 0 ? [{ x: x(i), y: height - pad.bottom + 20, text: shortDay(d.day) }] : [],
    ),
    lines: chartSeries.map(([key, name]) => ({
      key,
      name,
      points: daily.map((d, i) => `${x(i).toFixed(1)},${y(d[key]).toFixed(1)}`).join(' '),
      dots: daily.map((d, i) => ({
        cx: x(i).toFixed(1),
        cy: y(d[key]).toFixed(1),
        day: shortDay(d.day),
        value: d[key],
      })),
    })),
  };
}
