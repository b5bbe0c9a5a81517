import type { StatsDetail } from '../../stats/stats.ts';
import { drawnHtml } from '../../text/html.ts';
import { statsMarkup } from '../../../web/static/markup/stats.js';
import type { PageView } from '../layout.ts';

/** "/stats": the board in numbers (web/static/markup/stats.js). */
export function statsPage(origin: string, stats: StatsDetail): PageView {
  return { status: 200, title: 'Statistik', canonical: `${origin}/stats`, main: drawnHtml(statsMarkup(stats)) };
}
