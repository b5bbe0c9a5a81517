import { atomXml, boardFeedEntries, entryTitle, threadFeedEntries, userFeedEntries, type AtomFeed } from '../atom/feeds.ts';
import { findLiveEntry } from '../entries.ts';
import { findFeedTokenOwner } from '../feed-tokens.ts';
import { etagOf, sendDocument } from '../http/conditional.ts';
import type { Ctx } from '../http/context.ts';
import { readNotifications } from '../notifications.ts';
import type { CachedDocument } from '../response-cache.ts';
import { findUserByName } from '../users.ts';
import { notFoundPage } from './shell.ts';

/**
 * The Atom feeds (docs/API.md "Atom feeds"). The public ones are kept in the response cache
 * until a write changes what they show and answer If-None-Match / If-Modified-Since with 304;
 * none counts an impression (feed readers are no visitors).
 */

const atomType = 'application/atom+xml; charset=utf-8';
/** Public feeds: any cache may keep them, but must ask again (the ETag makes that cheap). */
const publicCache = 'public, no-cache';

function documentOf(ctx: Ctx, feed: AtomFeed): CachedDocument {
  const { xml, updated } = atomXml(ctx.app.config.origin, feed);
  const body = Buffer.from(xml);
  return { body, etag: etagOf(body), updated };
}

async function sendPublic(ctx: Ctx, key: string, build: () => AtomFeed | undefined): Promise<void> {
  const doc = ctx.app.db.responses.document(key, () => {
    const feed = build();
    return feed && documentOf(ctx, feed);
  });
  if (!doc) return notFoundPage(ctx);
  sendDocument(ctx, atomType, doc, { 'Cache-Control': publicCache });
}

/** GET /feed.atom: the 50 newest threads by last activity. */
export function boardAtom(ctx: Ctx) {
  return sendPublic(ctx, '/feed.atom', () => ({
    page: '/', self: '/feed.atom', title: 'Das Board: neueste Beiträge', entries: boardFeedEntries(ctx.app.db), emptyUpdated: ctx.app.clock.now(),
  }));
}

/** GET /e/{pid}/feed.atom: the entry and its 50 newest replies; 404 for an unknown, deleted or removed entry. */
export function threadAtom(ctx: Ctx) {
  const pid = /^\d{1,15}$/.test(ctx.params.pid!) ? Number(ctx.params.pid) : 0;
  return sendPublic(ctx, `/e/${pid}/feed.atom`, () => {
    const entry = pid > 0 ? findLiveEntry(ctx.app.db, pid) : undefined;
    if (!entry) return undefined;
    return { page: `/e/${pid}`, self: `/e/${pid}/feed.atom`, title: `Das Board: Diskussion ${pid}`, entries: threadFeedEntries(ctx.app.db, pid), emptyUpdated: entry.created_at };
  });
}

/** GET /u/{username}/feed.atom: the author's 50 newest entries; 404 for an unknown user. */
export function userAtom(ctx: Ctx) {
  const user = findUserByName(ctx.app.db, ctx.params.username!);
  if (!user) return notFoundPage(ctx);
  const page = `/u/${encodeURIComponent(user.username)}`;
  return sendPublic(ctx, `/u/${user.uid}/feed.atom`, () => ({
    page, self: `${page}/feed.atom`, title: `Das Board: Beiträge von ${user.username}`, entries: userFeedEntries(ctx.app.db, user.uid), emptyUpdated: user.created_at,
  }));
}

const kindTitles = { reply: 'Antwort', mention: 'Erwähnung' } as const;

/** GET /n/{token}.atom: the account's 50 newest notifications; 404 for an unknown or ended token, and while the account is banned. Never cached by anyone. */
export function privateAtom(ctx: Ctx) {
  const token = /^(.*)\.atom$/.exec(ctx.params.token!)?.[1] ?? '';
  const uid = findFeedTokenOwner(ctx.app.db, token, ctx.app.clock.now());
  if (uid === undefined) return notFoundPage(ctx);
  const notifications = readNotifications(ctx.app.db, uid, 0, 50);
  const kinds = new Map(notifications.map((n) => [n.entry.pid, kindTitles[n.kind]]));
  const doc = documentOf(ctx, {
    page: '/benachrichtigungen', self: ctx.url.pathname, title: 'Das Board: deine Benachrichtigungen',
    entries: notifications.map((n) => n.entry), emptyUpdated: ctx.app.clock.now(),
    titleOf: (entry) => `${kinds.get(entry.pid)} von ${entry.username}: ${entryTitle(entry)}`,
  });
  sendDocument(ctx, atomType, doc, { 'Cache-Control': 'private, no-cache', 'Referrer-Policy': 'no-referrer' });
}
