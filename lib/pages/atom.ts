import { atomFeedSize } from '../product.ts';
import {
  boardFeedChangedAt,
  privateFeedChangedAt,
  threadFeedChangedAt,
  userFeedChangedAt,
} from '../db/feed-changes.ts';
import {
  atomXml,
  boardFeedEntries,
  entryTitle,
  threadFeedEntries,
  userFeedEntries,
  type AtomFeed,
} from '../atom/feeds.ts';
import { findLiveEntry } from '../entries/entries.ts';
import { readEntriesByPid } from '../entries/reads.ts';
import { findFeedTokenOwner } from '../notifications/feed-tokens.ts';
import { etagOf, sendDocument } from '../http/conditional.ts';
import type { Ctx } from '../http/context.ts';
import { cacheHeaders } from '../http/respond.ts';
import { readNotifications } from '../notifications/notifications.ts';
import type { CachedDocument } from '../http/response-cache.ts';
import { entryPageTitle } from './share.ts';
import { findPublicAccount } from '../accounts/users.ts';
import { notFoundPage, pageParams } from './shell.ts';
import { html, type Answer, type Operation } from '../openapi/kit.ts';
import { responsesOf } from '../http/response-cache.ts';
import { withEntries } from '../entries/reads.ts';

/**
 * The Atom feeds (docs/API.md "Atom feeds"). The public ones are kept in the response cache
 * until a write changes what they show and answer If-None-Match / If-Modified-Since with 304;
 * none counts an impression (feed readers are no visitors).
 */

const atomType = 'application/atom+xml; charset=utf-8';
/** Public feeds: any cache may keep them, but must ask again (the ETag makes that cheap); a shared one a few seconds (cacheHeaders). */
const publicCache = 'public, no-cache';

const atomAnswer = (description: string): Answer => ({ status: 200, description, mediaType: 'application/atom+xml' });
const notModified: Answer = {
  status: 304,
  description: "If-None-Match or If-Modified-Since: the client's copy is current (no body)",
  empty: true,
};
const notFoundAnswer = (what: string) => html(404, `the page with status 404: ${what}`);

const publicFeed = (id: string, summary: string, notFound?: string): Operation => ({
  id,
  summary,
  description:
    'Valid Atom 1.0 (RFC 4287); deleted and removed entries left out; no impression counted. ETag and Last-Modified; a matching If-None-Match (or If-Modified-Since) answers 304. What an entry of the feed holds, and when the feed changes: docs/API.md "Atom feeds".',
  ok: atomAnswer('the feed'),
  more: [notModified, ...(notFound ? [notFoundAnswer(notFound)] : [])],
});

function documentOf(ctx: Ctx, feed: AtomFeed): CachedDocument {
  const { xml, updated } = atomXml(ctx.app.config.origin, feed);
  const body = Buffer.from(xml);
  return { body, etag: etagOf(body), updated };
}

async function sendPublic(ctx: Ctx, key: string, build: () => AtomFeed | undefined): Promise<void> {
  const doc = responsesOf(ctx.app.db).document(key, () => {
    const feed = build();
    return feed && documentOf(ctx, feed);
  });
  if (!doc) return notFoundPage(ctx);
  sendDocument(ctx, atomType, doc, cacheHeaders(ctx.sharedAnswer(200), publicCache));
}

/**
 * GET /feed.atom: the newest threads by last activity, since a reply or a bump deep in a thread
 * moves it up without a newer entry of its own.
 */
export function boardAtom(ctx: Ctx) {
  const { db } = ctx.app;
  return sendPublic(ctx, '/feed.atom', () => {
    const entries = boardFeedEntries(db);
    return {
      page: '/',
      self: '/feed.atom',
      title: 'Das Board: neueste Beiträge',
      entries,
      emptyUpdated: ctx.app.clock.now(),
      changedAt: Math.max(boardFeedChangedAt(db), ...entries.map((entry) => entry.last_activity)),
    };
  });
}
boardAtom.doc = publicFeed(
  'boardFeed',
  `Atom: the ${atomFeedSize} newest threads (top-level entries) by last activity`,
);

export function threadAtom(ctx: Ctx<'pid'>) {
  const { db } = ctx.app;
  const pid = pageParams.pid!.test(ctx.params.pid) ? Number(ctx.params.pid) : 0;
  return sendPublic(ctx, `/e/${pid}/feed.atom`, () => {
    const entry = pid > 0 ? findLiveEntry(db, pid) : undefined;
    const opening = entry && readEntriesByPid(db, [pid]).get(pid);
    if (!entry || !opening) return undefined;
    return {
      page: `/e/${pid}`,
      self: `/e/${pid}/feed.atom`,
      title: entryPageTitle(opening),
      entries: threadFeedEntries(db, pid),
      emptyUpdated: entry.created_at,
      // The title is the opening entry's text, which an edit changes even when it is not among the 50.
      changedAt: Math.max(threadFeedChangedAt(db, entry.root), opening.edited_at ?? 0),
    };
  });
}
threadAtom.doc = publicFeed(
  'threadFeed',
  `Atom: the ${atomFeedSize} newest entries (by created_at) of the entry's whole subtree: itself and its replies at any depth`,
  'unknown, deleted or removed entry',
);

export function userAtom(ctx: Ctx<'username'>) {
  const user = findPublicAccount(ctx.app.db, ctx.params.username);
  if (!user) return notFoundPage(ctx);
  const page = `/u/${encodeURIComponent(user.username)}`;
  return sendPublic(ctx, `/u/${user.uid}/feed.atom`, () => ({
    page,
    self: `${page}/feed.atom`,
    title: `Das Board: Beiträge von ${user.username}`,
    entries: userFeedEntries(ctx.app.db, user.uid),
    emptyUpdated: user.created_at,
    changedAt: userFeedChangedAt(ctx.app.db, user.uid),
  }));
}
userAtom.doc = publicFeed(
  'userFeedAtom',
  `Atom: the user's ${atomFeedSize} newest entries, replies included`,
  'no public account has the name',
);

const kindTitles = {
  reply: 'Antwort',
  mention: 'Erwähnung',
  thread_reply: 'Antwort in einem gefolgten Thread',
} as const;

/**
 * GET /n/{token}.atom: the account's newest notifications; 404 for an unknown or ended token and
 * while the account is banned. Never cached.
 */
export function privateAtom(ctx: Ctx<'token'>) {
  const token = /^(.*)\.atom$/.exec(ctx.params.token)?.[1] ?? '';
  const uid = findFeedTokenOwner(ctx.app.db, token, ctx.app.clock.now());
  if (uid === undefined) return notFoundPage(ctx);
  const notifications = withEntries(ctx.app.db, readNotifications(ctx.app.db, uid, 0, atomFeedSize), true);
  const kinds = new Map(notifications.map((n) => [n.entry.pid, kindTitles[n.kind]]));
  const doc = documentOf(ctx, {
    page: '/benachrichtigungen',
    self: ctx.url.pathname,
    title: 'Das Board: deine Benachrichtigungen',
    entries: notifications.map((n) => n.entry),
    emptyUpdated: ctx.app.clock.now(),
    changedAt: privateFeedChangedAt(ctx.app.db, uid),
    titleOf: (entry) => `${kinds.get(entry.pid)} von ${entry.username}: ${entryTitle(entry)}`,
  });
  sendDocument(ctx, atomType, doc, { 'Cache-Control': 'private, no-cache', 'Referrer-Policy': 'no-referrer' });
}
privateAtom.doc = {
  id: 'privateFeed',
  summary: `Atom: the private feed of one's ${atomFeedSize} newest notifications (the path is <token>.atom)`,
  description:
    'Its address comes from POST /api/user/feed-token. Its entries are titled "Antwort von …", "Erwähnung von …" or "Antwort in einem gefolgten Thread von …". The request log writes the path as `/n/…`, without the token.',
  ok: atomAnswer('the feed (Cache-Control: private, no-cache)'),
  more: [
    notModified,
    notFoundAnswer(
      'unknown, replaced or ended token, or its account is under a ban in force (the token is kept: the feed works again when the ban ends)',
    ),
  ],
} satisfies Operation;
