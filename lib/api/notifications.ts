import { requireUser, type Ctx } from '../http/context.ts';
import { integerParam, textField } from '../http/fields.ts';
import { createFeedToken, endFeedToken } from '../notifications/feed-tokens.ts';
import { maxFeedPage, notificationPageSize } from '../product.ts';
import { countUnread, markRead, readNotifications } from '../notifications/notifications.ts';
import { arrayOf, field, integer, json, object, ref, status, string, type Operation } from '../openapi/kit.ts';
import { withEntries } from '../entries/reads.ts';

const unreadCount = object({ count: integer('unread notifications') });

export function notifications(ctx: Ctx<'page'>) {
  const me = requireUser(ctx);
  const page = integerParam(ctx.params.page, 'page', 0, maxFeedPage);
  return withEntries(ctx.app.db, readNotifications(ctx.app.db, me.uid, page), true);
}
notifications.doc = {
  id: 'notifications',
  summary: `The own notifications of replies and mentions, newest first, ${notificationPageSize} a page`,
  ok: json('one page', arrayOf(ref('Notification'), notificationPageSize)),
} satisfies Operation;

export function unread(ctx: Ctx) {
  const me = requireUser(ctx);
  return { count: countUnread(ctx.app.db, me.uid) };
}
unread.doc = {
  id: 'unreadNotifications',
  summary: "How many notifications are unread (the header's badge)",
  description:
    'The unread notifications that the list shows. The front end asks when the tab gains focus and every minute while it is visible, never more often.',
  ok: json('the count', unreadCount),
} satisfies Operation;

export async function read(ctx: Ctx) {
  const me = requireUser(ctx);
  const form = await ctx.form();
  const upTo = form.fields.has('up_to') ? integerParam(textField(form, 'up_to'), 'up_to') : undefined;
  return { count: markRead(ctx.app.db, me.uid, upTo) };
}
read.doc = {
  id: 'markNotificationsRead',
  summary: 'Mark notifications read: up to an id, or all',
  fields: {
    up_to: field('a notification id: every notification of the account up to it; absent: all', {
      type: 'string',
      pattern: '^\\d{1,15}$',
    }),
  },
  ok: json('how many are still unread', unreadCount),
  errors: { 400: ['input.invalid'] },
  when: { 'input.invalid': '`field` `up_to`: present but not a non-negative integer' },
} satisfies Operation;

export function newFeedToken(ctx: Ctx) {
  const me = requireUser(ctx);
  const token = createFeedToken(ctx.app.db, me.uid, ctx.app.clock.now());
  return { url: `${ctx.app.config.origin}/n/${token}.atom` };
}
newFeedToken.doc = {
  id: 'createFeedToken',
  summary: "Create or replace the secret address of the private Atom feed of one's notifications",
  description:
    "The address before stops working at once. Only the token's SHA-256 is stored; a password change and a reset end it. The feed: GET /n/{token}.",
  ok: json(
    "the feed's address (the one before stops working)",
    object({ url: string('<BOARD_ORIGIN>/n/<token>.atom', { format: 'uri' }) }),
  ),
} satisfies Operation;

export function revokeFeedToken(ctx: Ctx) {
  const me = requireUser(ctx);
  endFeedToken(ctx.app.db, me.uid);
  return { status: 'ok' };
}
revokeFeedToken.doc = {
  id: 'revokeFeedToken',
  summary: "End the private feed's address (also when there is none)",
  ok: json('ended', status('ok')),
} satisfies Operation;
