import { checkDatabase } from '../db/db.ts';
import type { Ctx } from '../http/context.ts';

/** GET /api/health: ok only after a real query, so a broken database shows as 500. */
export function health(ctx: Ctx) {
  checkDatabase(ctx.app.db);
  return { status: 'ok' };
}
