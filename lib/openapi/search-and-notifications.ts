import { maxQueryLength, maxQueryTerms } from '../search/query.ts';
import {
  arrayOf,
  field,
  integer,
  json,
  object,
  oneOfValues,
  ref,
  requiredField,
  status,
  string,
  time,
  type Answer,
  type Area,
  type Operation,
} from './kit.ts';

/** docs/API.md "Search", "Notifications of replies and mentions" and "Atom feeds" (issue 15). */

const atom = (description: string): Answer => ({ status: 200, description, mediaType: 'application/atom+xml' });
const notModified: Answer = {
  status: 304,
  description: "If-None-Match or If-Modified-Since: the client's copy is current (no body)",
  empty: true,
};
const notFoundPage = (what: string): Answer => ({
  status: 404,
  description: `the page with status 404: ${what}`,
  mediaType: 'text/html',
});

/** A public Atom feed: valid Atom 1.0, cached, with ETag and Last-Modified. */
const publicFeed = (id: string, summary: string, notFound?: string): Operation => ({
  id,
  summary,
  description:
    'Valid Atom 1.0 (RFC 4287); deleted and removed entries left out; no impression counted. ETag and Last-Modified; a matching If-None-Match (or If-Modified-Since) answers 304.',
  ok: atom('the feed'),
  more: [notModified, ...(notFound ? [notFoundPage(notFound)] : [])],
});

const unreadCount = object({ count: integer('unread notifications') });

export const finding: Area = {
  tag: 'Search, notifications and feeds',
  description: 'Full-text search, notifications of replies and mentions, and the Atom feeds.',
  operations: {
    'GET /api/search/:page': {
      id: 'search',
      summary: 'Live entries holding every word of q, newest first, 20 a page',
      description:
        'q is taken literally (a pair of double quotes makes a phrase); a word of 3+ characters finds the compounds that contain it, words of 1–2 characters match whole words. ' +
        "The match runs on the machine's search threads: when their line is full, 503 search.busy with Retry-After (seconds).",
      query: {
        q: requiredField(
          `what to look for, 1–${maxQueryLength} characters, not only whitespace, at most ${maxQueryTerms} words (a phrase in quotes counts as one)`,
          string(undefined, { minLength: 1, maxLength: maxQueryLength }),
        ),
        user: field("a username: search that author's entries only"),
      },
      ok: json('the matching entries, each with latest', arrayOf(ref('EntryWithLatest'), 20)),
      errors: { 400: ['input.invalid'], 404: ['user.not_found'], 503: ['search.busy'] },
    },
    'GET /api/user/notifications/unread': {
      id: 'unreadNotifications',
      summary: "How many notifications are unread (the header's badge)",
      ok: json('the count', unreadCount),
    },
    'GET /api/user/notifications/:page': {
      id: 'notifications',
      summary: 'The own notifications of replies and mentions, newest first, 20 a page',
      ok: json('one page', arrayOf(ref('Notification'), 20)),
    },
    'POST /api/user/notifications/read': {
      id: 'markNotificationsRead',
      summary: 'Mark notifications read: up to an id, or all',
      fields: { up_to: field('a notification id; absent: all', { type: 'string', pattern: '^\\d{1,15}$' }) },
      ok: json('how many are still unread', unreadCount),
      errors: { 400: ['input.invalid'] },
    },
    'POST /api/user/feed-token': {
      id: 'createFeedToken',
      summary: "Create or replace the secret address of the private Atom feed of one's notifications",
      ok: json(
        "the feed's address (the one before stops working)",
        object({ url: string('<BOARD_ORIGIN>/n/<token>.atom', { format: 'uri' }) }),
      ),
    },
    'POST /api/user/feed-token/revoke': {
      id: 'revokeFeedToken',
      summary: "End the private feed's address (also when there is none)",
      ok: json('ended', status('ok')),
    },
    'GET /feed.atom': publicFeed('boardFeed', 'Atom: the 50 newest threads by last activity'),
    'GET /e/:pid/feed.atom': publicFeed(
      'threadFeed',
      "Atom: the 50 newest entries of the entry's whole subtree, at any depth",
      'unknown, deleted or removed entry',
    ),
    'GET /u/:username/feed.atom': publicFeed('userFeedAtom', "Atom: the user's 50 newest entries", 'no such user'),
    'GET /n/:token': {
      id: 'privateFeed',
      summary: "Atom: the private feed of one's 50 newest notifications (the path is <token>.atom)",
      ok: atom('the feed (Cache-Control: private, no-cache)'),
      more: [notModified, notFoundPage('unknown, replaced or ended token')],
    },
  },
};

/** The notification list's item (docs/API.md "GET /api/user/notifications/{page}"). */
export const notificationSchema = object({
  id: integer('notification id (for up_to)', { minimum: 1 }),
  created_at: time(),
  kind: oneOfValues('reply', 'mention', 'thread_reply'),
  read: oneOfValues(0, 1),
  entry: ref('Entry'),
});
