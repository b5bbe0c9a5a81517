import { checkDatabase } from '../db/db.ts';
import type { Ctx } from '../http/context.ts';
import { json, status, type Operation } from '../openapi/kit.ts';

/** GET /api/health: ok only after a real query, so a broken database shows as 500. */
export function health(ctx: Ctx) {
  checkDatabase(ctx.app.db);
  return { status: 'ok' };
}
health.doc = {
  id: 'health',
  summary: 'ok after a real database query (for monitoring and load balancers)',
  ok: json('the database answers', status('ok')),
} satisfies Operation;
