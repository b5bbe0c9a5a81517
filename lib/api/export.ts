import { pipeline } from 'node:stream/promises';

import { ClientGone, requireUser, type Ctx } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { listPasskeys } from '../accounts/passkeys.ts';
import { listSessionsOfUser } from '../accounts/sessions.ts';
import { listFollowsForExport } from '../follows/follows.ts';
import { findUserById } from '../accounts/users.ts';
import { sessionJson } from './account.ts';
import { pushDevicesBySession, withPushDevice } from './push.ts';
import { ownProfile } from './users.ts';
import { trustLevel } from '../accounts/trust.ts';
import type { Operation } from '../openapi/kit.ts';
import { accountArchive } from '../account-data/export-archive.ts';

/**
 * GET /api/user/export: the account's data as one zip, streamed (lib/account-data/export.ts); the
 * write limit `export` bounds how often.
 */
export async function exportAccount(ctx: Ctx) {
  const me = requireUser(ctx);
  const { db, clock, config } = ctx.app;
  const now = clock.now();
  const user = findUserById(db, me.uid);
  if (!user) throw new ApiError(401, 'auth.required');

  const headers = {
    'Content-Type': 'application/zip',
    'Content-Disposition': attachment(`board-${user.username}-${new Date(now * 1000).toISOString().slice(0, 10)}.zip`),
    'Cache-Control': 'no-store',
  };
  if (ctx.req.method === 'HEAD') return void ctx.res.writeHead(200, headers).end();
  // Read before the headers go out, so a database failure here is still a clean 500.
  const devices = pushDevicesBySession(ctx, me.uid);
  const sessions = listSessionsOfUser(db, me.uid, now, Infinity).map((session) =>
    withPushDevice(sessionJson(session, me.id), devices),
  );
  const archive = await accountArchive({
    db,
    mediaDir: config.mediaDir,
    uid: me.uid,
    user: ownProfile(user, trustLevel(db, user.uid, now)),
    sessions,
    // Names and times only: never a key or a credential id (docs/API.md "GET /api/user/export").
    passkeys: listPasskeys(db, me.uid).map(({ name, created_at, last_used }) => ({ name, created_at, last_used })),
    following: listFollowsForExport(db, me.uid),
    origin: config.origin,
    now,
    recheck: () => ctx.recheckSession(),
  });
  ctx.res.writeHead(200, headers);
  const { signal } = ctx;
  try {
    await pipeline(archive, ctx.res);
  } catch (err) {
    // Headers are out: the pipeline's error answer can only cut the connection, and logs real faults.
    throw signal.aborted ? new ClientGone('client went away') : err;
  }
}
exportAccount.doc = {
  id: 'exportAccount',
  summary: 'Download the own data as a zip (account.json and media), 3 an hour',
  description:
    'With `Content-Disposition: attachment; filename="board-<name>-<YYYY-MM-DD>.zip"` (plus `filename*` in UTF-8 for names beyond ASCII) and `Cache-Control: no-store`. What the archive holds, and how it is streamed: docs/API.md "The data export".',
  ok: { status: 200, description: 'the archive, streamed (no Content-Length)', mediaType: 'application/zip' },
  when: {
    'rate.limited':
      'the fourth export of the account within the hour (always on: BOARD_LIMITS neither scales nor lifts it)',
    internal: 'the database fails before the answer begins; after the first bytes an error can only cut the connection',
  },
} satisfies Operation;

function attachment(name: string): string {
  const ascii = name.replace(/[^A-Za-z0-9._-]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
