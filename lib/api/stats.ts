import type { Ctx } from '../http/context.ts';
import { readStatsDetail, readStatsSummary } from '../stats/stats.ts';

/** GET /api/stats: users and non-deleted entries. */
export function summary(ctx: Ctx) {
  return readStatsSummary(ctx.app.db);
}

/** GET /api/stats/detail: counts, votes, impressions, visitors, the last 30 days and the top ASNs. */
export function detail(ctx: Ctx) {
  return readStatsDetail(ctx.app.db, ctx.app.impressions, ctx.app.clock.now());
}
