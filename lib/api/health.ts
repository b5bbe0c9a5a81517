import { checkDatabase } from '../db/db.ts';
import { Reply, type Ctx } from '../http/context.ts';

/**
 * GET /api/health: ok only after a real query, so a broken database shows as 500; 503 degraded
 * while the data volume refuses writes or runs low (lib/disk/disk-watch.ts), so a monitor sees a
 * full disk before the users do.
 */
export function health(ctx: Ctx) {
  checkDatabase(ctx.app.db);
  const problems = ctx.app.disk.problems();
  return problems.length ? new Reply(503, { status: 'degraded', problems }) : { status: 'ok' };
}
