import { requireUser, type Ctx } from '../http/context.ts';
import { integerParam, textField } from '../http/fields.ts';
import { createFeedToken, endFeedToken } from '../notifications/feed-tokens.ts';
import { maxFeedPage } from '../limits/product.ts';
import { countUnread, markRead, readNotifications } from '../notifications/notifications.ts';

/** GET /api/user/notifications/{page}: 20 a page, newest first, each with its Entry. */
export function notifications(ctx: Ctx) {
  const me = requireUser(ctx);
  const page = integerParam(ctx.params.page, 'page', 0, maxFeedPage);
  return readNotifications(ctx.app.db, me.uid, page);
}

/** GET /api/user/notifications/unread: {count}, what the header's badge shows. */
export function unread(ctx: Ctx) {
  const me = requireUser(ctx);
  return { count: countUnread(ctx.app.db, me.uid) };
}

/** POST /api/user/notifications/read with optional up_to (an id; absent: all): {count} still unread. */
export async function read(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const upTo = form.fields.has('up_to') ? integerParam(textField(form, 'up_to'), 'up_to') : undefined;
  return { count: markRead(ctx.app.db, me.uid, upTo) };
}

/** POST /api/user/feed-token: a new secret for the private Atom feed (the one before stops working): {url}. */
export function newFeedToken(ctx: Ctx) {
  const me = requireUser(ctx);
  const token = createFeedToken(ctx.app.db, me.uid, ctx.app.clock.now());
  return { url: `${ctx.app.config.origin}/n/${token}.atom` };
}

/** POST /api/user/feed-token/revoke: 200 also when there was none. */
export function revokeFeedToken(ctx: Ctx) {
  const me = requireUser(ctx);
  endFeedToken(ctx.app.db, me.uid);
  return { status: 'ok' };
}
