import { checkDatabase } from '../db/db.ts';
import { Reply, type Ctx } from '../http/context.ts';
import { constant, json, status, type Operation } from '../openapi/kit.ts';

/**
 * GET /api/health: ok only after a real query, so a broken database shows as 500; 503 degraded
 * while the data volume refuses writes or runs low (lib/host/disk-watch.ts), so a monitor sees a
 * full disk before the users do.
 */
export function health(ctx: Ctx) {
  checkDatabase(ctx.app.db);
  const problems = ctx.app.disk.problems();
  return problems.length ? new Reply(503, { status: 'degraded', problems }) : { status: 'ok' };
}
health.doc = {
  id: 'health',
  summary: 'ok after a real database query (for monitoring and load balancers)',
  description:
    'An addition to the specification. `disk_full`: a write was refused for lack of space (507 server.disk_full) within the last minute; `disk_low`: the volume that holds BOARD_DATA has less free space than BOARD_DISK_LOW_MB (default 500 MiB; 0 turns this check off), so a monitor hears of it before writes fail. A monitor that alerts on any status but 200 sees both; the metrics carry the figures (`board_data_volume_free_bytes`, `board_media_bytes{folder}`; docs/OPERATIONS.md "Alerts").',
  ok: json('the database answers', status('ok')),
  more: [
    json(
      'the data volume refused a write in the last minute (disk_full) or has less free space than BOARD_DISK_LOW_MB (disk_low)',
      {
        type: 'object',
        required: ['status', 'problems'],
        properties: {
          status: constant('degraded'),
          problems: { type: 'array', items: { enum: ['disk_full', 'disk_low'] }, minItems: 1 },
        },
      },
      503,
    ),
  ],
  when: { internal: 'the database fails' },
} satisfies Operation;
