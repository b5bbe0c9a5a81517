import { statsWindowDays } from '../product.ts';
import type { Ctx } from '../http/context.ts';
import { readStatsDetail, readStatsSummary } from '../stats/stats.ts';
import { json, ref, type Operation } from '../openapi/kit.ts';

export function summary(ctx: Ctx) {
  return readStatsSummary(ctx.app.db);
}
summary.doc = {
  id: 'stats',
  summary: 'Users and live entries',
  ok: json('the counts', ref('Stats')),
  when: { internal: 'the database fails (never zeros)' },
} satisfies Operation;

export function detail(ctx: Ctx) {
  return readStatsDetail(ctx.app.db, ctx.app.impressions, ctx.app.clock.now());
}
detail.doc = {
  id: 'statsDetail',
  summary: `Counts, votes, impressions, visitors, the last ${statsWindowDays} days and the top networks`,
  description: 'What counts as an impression and a visitor, and when the counts update: docs/API.md "Statistics".',
  ok: json('the statistics', ref('StatsDetail')),
  when: { internal: 'the database fails (never zeros)' },
} satisfies Operation;
