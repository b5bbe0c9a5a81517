import type { Db } from '../db/db.ts';
import { readEntriesByPid, type EntryJson } from '../entries/reads.ts';
import { newestInSubtree } from './subtree.ts';
import { atomTime, element, parent } from './xml.ts';
import { atomFeedSize } from '../product.ts';

/**
 * The Atom 1.0 feeds (RFC 4287; docs/API.md "Atom feeds"): the board's newest threads, one
 * thread, one author, and an account's private feed of notifications. Only live entries appear:
 * a deleted or removed entry is left out, not shown as a tombstone.
 */

/** An entry's title: the start of its text, so a feed reader's list says what it is about. */
const titleLength = 80;

export interface AtomFeed {
  page: string;
  self: string;
  title: string;
  entries: EntryJson[];
  emptyUpdated: number;
  /**
   * The feed's last change that its entries' own times do not show (an entry gone, a thread
   * moved up, a renamed author: lib/db/feed-changes.ts); the feed's `updated` is never older.
   */
  changedAt?: number;
  titleOf?: (entry: EntryJson) => string;
}

export interface AtomDocument {
  xml: string;
  updated: number;
}

export function entryTitle(entry: EntryJson): string {
  const line = entry.content.replace(/\s+/g, ' ').trim();
  const chars = [...line];
  if (chars.length === 0) return entry.filepath ? `Bild von ${entry.username}` : `Beitrag ${entry.pid}`;
  return chars.length > titleLength ? `${chars.slice(0, titleLength - 1).join('')}…` : line;
}

const imageTypes: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
};

function entryXml(origin: string, entry: EntryJson, title: string): string {
  const link = `${origin}/e/${entry.pid}`;
  const updated = entry.edited_at ?? entry.created_at;
  const children = [
    element('id', {}, link),
    element('title', { type: 'text' }, title),
    element('updated', {}, atomTime(updated)),
    element('published', {}, atomTime(entry.created_at)),
    parent('author', {}, [
      element('name', {}, entry.username || 'gelöschtes Konto'),
      ...(entry.username ? [element('uri', {}, `${origin}/u/${encodeURIComponent(entry.username)}`)] : []),
    ]),
    element('link', { rel: 'alternate', type: 'text/html', href: link }),
    element('content', { type: 'text' }, entry.content),
  ];
  if (entry.filepath) {
    const type = imageTypes[entry.filepath.split('.').pop()!.toLowerCase()] ?? 'application/octet-stream';
    children.push(element('link', { rel: 'enclosure', type, href: `${origin}/static/media/${entry.filepath}` }));
  }
  return parent('entry', {}, children);
}

export function atomXml(origin: string, feed: AtomFeed): AtomDocument {
  const live = feed.entries.filter((entry) => !entry.deleted);
  const updated =
    Math.max(feed.changedAt ?? 0, ...live.map((entry) => entry.edited_at ?? entry.created_at)) || feed.emptyUpdated;
  const xml =
    '<?xml version="1.0" encoding="utf-8"?>\n' +
    parent('feed', { xmlns: 'http://www.w3.org/2005/Atom' }, [
      element('id', {}, `${origin}${feed.page}`),
      element('title', { type: 'text' }, feed.title),
      element('updated', {}, atomTime(updated)),
      element('link', { rel: 'self', type: 'application/atom+xml', href: `${origin}${feed.self}` }),
      element('link', { rel: 'alternate', type: 'text/html', href: `${origin}${feed.page}` }),
      element('generator', {}, 'Das Board'),
      ...live.map((entry) => entryXml(origin, entry, (feed.titleOf ?? entryTitle)(entry))),
    ]);
  return { xml, updated };
}

function entriesInOrder(db: Db, pids: number[]): EntryJson[] {
  const byPid = readEntriesByPid(db, pids);
  return pids.map((pid) => byPid.get(pid)).filter((entry): entry is EntryJson => entry !== undefined && !entry.deleted);
}

export function boardFeedEntries(db: Db): EntryJson[] {
  const rows = db.all<{ pid: number }>(
    `SELECT pid FROM entries INDEXED BY entries_feed WHERE reply_to = 0 AND deleted = 0
     ORDER BY last_activity DESC, pid DESC LIMIT ?`,
    atomFeedSize,
  );
  return entriesInOrder(
    db,
    rows.map((row) => row.pid),
  );
}

/**
 * The most pages of replies the thread feed's walk reads, each one indexed query. Why a bound: the
 * walk reads little beyond the newest entries' ancestors, but a subtree whose newest entries were
 * removed by the hundred makes it read through them; past this it shows what it found.
 */
export const threadFeedReads = 500;

export function threadFeedEntries(db: Db, pid: number, maxReads = threadFeedReads): EntryJson[] {
  return entriesInOrder(db, newestInSubtree(db, pid, atomFeedSize, maxReads));
}

export function userFeedEntries(db: Db, uid: number): EntryJson[] {
  const rows = db.all<{ pid: number }>(
    'SELECT pid FROM entries WHERE uid = ? AND deleted = 0 ORDER BY pid DESC LIMIT ?',
    uid,
    atomFeedSize,
  );
  return entriesInOrder(
    db,
    rows.map((row) => row.pid),
  );
}
