import { Temporal } from '@js-temporal/polyfill';
import {
  Endpoints,
  Group,
  Image,
  Mention,
  Note,
  Person,
  PUBLIC_COLLECTION,
  Tombstone,
  type CryptographicKey,
  type Multikey,
} from '@fedify/fedify/vocab';
import { isPublicAccount, type User } from '../accounts/users.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { boardMediaName, mediaFormats } from '../media/files.ts';
import { mentionedUids } from '../notifications/mentions.ts';
import { splitLinks } from '../text/links.ts';
import { boardIdentifier, fediverseHandle, handleOf } from './handles.ts';
import { html, toText, type Child } from '../text/html.ts';

/**
 * The board as ActivityPub objects (docs/API.md "Federation"), in the shapes Mastodon, Lemmy and
 * NodeBB read: the board is a Group (`@board@host`, as Lemmy's communities are, FEP-1b12), each
 * public account a Person, each entry a Note whose id and url are its page /e/{pid}.
 */

export { boardIdentifier };

export const apPaths = {
  actor: '/ap/actor/{identifier}',
  inbox: '/ap/actor/{identifier}/inbox',
  outbox: '/ap/actor/{identifier}/outbox',
  followers: '/ap/actor/{identifier}/followers',
  sharedInbox: '/ap/inbox',
} as const;

/** An actor's URI: `board` for the Group, the uid for a person (a rename keeps the id). */
export function actorUri(origin: string, identifier: string | number, path: keyof typeof apPaths = 'actor'): URL {
  return new URL(apPaths[path].replace('{identifier}', String(identifier)), origin);
}

export const entryUri = (origin: string, pid: number): URL => new URL(`/e/${pid}`, origin);
export const profileUrl = (origin: string, username: string): URL =>
  new URL(`/u/${encodeURIComponent(username)}`, origin);
const mediaUrl = (origin: string, path: string): URL => new URL(`/static/media/${path}`, origin);

const instant = (seconds: number) => Temporal.Instant.fromEpochMilliseconds(seconds * 1000);

export function federatedAccount(db: Db, uid: number): User | undefined {
  return db.one<User>(
    `SELECT uid, username, created_at, last_login, avatar, role, banned_until, ban_reason, status
     FROM users u WHERE u.uid = ? AND ${isPublicAccount}`,
    uid,
  );
}

export interface ActorKeys {
  publicKey: CryptographicKey;
  assertionMethods: Multikey[];
}

export function personOf(config: Pick<Config, 'origin'>, user: User, keys: ActorKeys): Person {
  const { origin } = config;
  const avatar = user.avatar ? boardMediaName(user.avatar) : undefined;
  return new Person({
    id: actorUri(origin, user.uid),
    preferredUsername: handleOf(user),
    name: user.username,
    url: profileUrl(origin, user.username),
    inbox: actorUri(origin, user.uid, 'inbox'),
    outbox: actorUri(origin, user.uid, 'outbox'),
    followers: actorUri(origin, user.uid, 'followers'),
    endpoints: new Endpoints({ sharedInbox: new URL(apPaths.sharedInbox, origin) }),
    icon: avatar
      ? new Image({ url: mediaUrl(origin, user.avatar), mediaType: mediaFormats[avatar.extension].type })
      : null,
    published: instant(user.created_at),
    manuallyApprovesFollowers: false,
    discoverable: true,
    publicKey: keys.publicKey,
    assertionMethods: keys.assertionMethods,
  });
}

/** The board's Group: `@board@host`, named by BOARD_FEDERATION_NAME, announcing every new public entry. */
export function groupOf(config: Pick<Config, 'origin' | 'federationName'>, keys: ActorKeys): Group {
  const { origin } = config;
  return new Group({
    id: actorUri(origin, boardIdentifier),
    preferredUsername: boardIdentifier,
    name: config.federationName,
    summary: `Alle öffentlichen Beiträge von ${new URL(origin).host}.`,
    url: new URL('/', origin),
    inbox: actorUri(origin, boardIdentifier, 'inbox'),
    outbox: actorUri(origin, boardIdentifier, 'outbox'),
    followers: actorUri(origin, boardIdentifier, 'followers'),
    endpoints: new Endpoints({ sharedInbox: new URL(apPaths.sharedInbox, origin) }),
    manuallyApprovesFollowers: false,
    discoverable: true,
    publicKey: keys.publicKey,
    assertionMethods: keys.assertionMethods,
  });
}

export function goneActor(origin: string, uid: number, deleted: number): Tombstone {
  return new Tombstone({ id: actorUri(origin, uid), formerType: Person, deleted: instant(deleted) });
}

export interface NoteRow {
  pid: number;
  uid: number;
  username: string;
  created_at: number;
  edited_at: number;
  content: string;
  filepath: string;
  alt: string;
  reply_to: number;
  root: number;
  deleted: number;
  removed_at: number;
  /** The author is public and not banned: only then is the entry federated. */
  federated: number;
}

export function noteRow(db: Db, pid: number, now: number): NoteRow | undefined {
  return db.one<NoteRow>(
    `SELECT e.pid, e.uid, coalesce(u.username, '') AS username, e.created_at, e.edited_at, e.content, e.filepath,
            e.alt, e.reply_to, e.root, e.deleted, e.removed_at,
            (u.uid IS NOT NULL AND ${isPublicAccount} AND (u.banned_until <> -1 AND u.banned_until <= ?)) AS federated
     FROM entries e LEFT JOIN users u ON u.uid = e.uid WHERE e.pid = ?`,
    now,
    pid,
  );
}

/**
 * The entry's text as HTML: paragraphs and line breaks as written, links and mentions of public
 * accounts as anchors, every other character as text; nothing else (no markup from the author).
 */
export function entryHtml(db: Db, origin: string, text: string): { content: string; mentions: User[] } {
  const mentions = mentionedUids(db, text).flatMap((uid) => federatedAccount(db, uid) ?? []);
  const names = [...mentions].sort((a, b) => b.username.length - a.username.length);
  const withMentions = (run: string): Child[] => {
    if (names.length === 0) return [run];
    const parts: Child[] = [];
    let rest = run;
    for (;;) {
      const lower = rest.toLowerCase();
      let best: { at: number; user: User } | undefined;
      for (const user of names) {
        const at = lower.indexOf(`@${user.username.toLowerCase()}`);
        if (at >= 0 && (!best || at < best.at)) best = { at, user };
      }
      if (!best) return [...parts, rest];
      const end = best.at + 1 + best.user.username.length;
      parts.push(
        rest.slice(0, best.at),
        html`<span class="h-card"><a href="${profileUrl(origin, best.user.username).href}" class="u-url mention">@<span>${rest.slice(best.at + 1, end)}</span></a></span>`,
      );
      rest = rest.slice(end);
    }
  };
  const lines = (paragraph: string): Child[] =>
    paragraph
      .split('\n')
      .map((line, i) => [
        i > 0 ? html`<br>` : '',
        splitLinks(line).map((part) =>
          typeof part === 'string'
            ? withMentions(part)
            : html`<a href="${part.url}" rel="nofollow noopener noreferrer" target="_blank">${part.url}</a>`,
        ),
      ]);
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .filter((p) => p.trim())
    .map((p) => html`<p>${lines(p)}</p>`);
  return { content: toText(html`${paragraphs}`), mentions };
}

/**
 * The Note of a live, federated entry: its page as id and url, the author, the text as HTML, the
 * parent (`inReplyTo`) and the thread's root (`context`, FEP-7888), its image, its times, to
 * Public, cc the author's followers and the Group, its mentions as tags.
 */
export function noteOf(db: Db, origin: string, row: NoteRow): Note {
  const { content, mentions } = entryHtml(db, origin, row.content);
  const image = row.filepath ? boardMediaName(row.filepath) : undefined;
  return new Note({
    id: entryUri(origin, row.pid),
    url: entryUri(origin, row.pid),
    attribution: actorUri(origin, row.uid),
    content,
    replyTarget: row.reply_to ? entryUri(origin, row.reply_to) : null,
    contexts: [entryUri(origin, row.root)],
    attachments: image
      ? [
          new Image({
            url: mediaUrl(origin, row.filepath),
            mediaType: mediaFormats[image.extension].type,
            name: row.alt || null,
          }),
        ]
      : [],
    published: instant(row.created_at),
    updated: row.edited_at ? instant(row.edited_at) : null,
    tos: [PUBLIC_COLLECTION],
    ccs: [
      actorUri(origin, row.uid, 'followers'),
      actorUri(origin, boardIdentifier),
      ...mentions.map((u) => actorUri(origin, u.uid)),
    ],
    tags: mentions.map(
      (user) => new Mention({ href: actorUri(origin, user.uid), name: fediverseHandle({ origin }, user) }),
    ),
  });
}

/** A deleted or removed entry, or one whose author no longer federates: a Tombstone (answered 410). */
export function goneNote(
  origin: string,
  row: Pick<NoteRow, 'pid' | 'removed_at' | 'edited_at' | 'created_at'>,
): Tombstone {
  return new Tombstone({
    id: entryUri(origin, row.pid),
    formerType: Note,
    deleted: instant(row.removed_at || row.edited_at || row.created_at),
  });
}

const addressing = new Set(['to', 'cc', 'bto', 'bcc', 'audience']);
const alwaysLists = new Set(['attachment', 'tag']);

/**
 * The JSON-LD as servers read it without a JSON-LD processor, as Fedify's own sending (unused here)
 * does: the Public collection as its full URI (Lemmy compares `to` and `cc` as plain URLs), and
 * `attachment` and `tag` as lists (Mastodon reads them so). Fedify's contexts keep the meaning.
 */
export function plainJsonLd<T>(value: T, key = ''): T {
  if (Array.isArray(value)) return value.map((item) => plainJsonLd(item, key)) as T;
  if (typeof value === 'string')
    return (addressing.has(key) && (value === 'as:Public' || value === 'Public') ? PUBLIC_COLLECTION.href : value) as T;
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    if (name === '@context') out[name] = item;
    else {
      const plain = plainJsonLd(item, name);
      out[name] = alwaysLists.has(name) && !Array.isArray(plain) ? [plain] : plain;
    }
  }
  return out as T;
}
