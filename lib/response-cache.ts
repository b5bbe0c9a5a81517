import { StampedCache } from './stamped-cache.ts';

/**
 * Serialised JSON of the hot API answers (feed pages, threads and search pages), kept until a
 * write changes what they show. One cache per database connection (`db.responses`). Every write that can
 * change an entry's JSON tells the cache in the same synchronous call as the write, so no reader
 * can see the old answer afterwards. The invalidation points, all of them:
 *
 * | write                                                    | call                |
 * |----------------------------------------------------------|---------------------|
 * | createEntry, editEntry, softDeleteEntry, bumpEntry,      | threadChanged(root) |
 * |   removeEntryOfDeletedAccount (lib/entries.ts: one       |                     |
 * |   thread and the feed move; the last one in the slices   |                     |
 * |   of lib/account-removal.ts)                             |                     |
 * | removeEntry, restoreEntry (lib/moderation/entries.ts;    | threadChanged(root) |
 * |   a ban's purge removes entry by entry)                  |                     |
 * | renameUser, setAvatar (lib/users.ts), deleteAccount      | everythingChanged() |
 * |   (lib/accounts.ts), savePreview (lib/preview/store.ts), |                     |
 * |   removeAvatarOf (lib/moderation/accounts.ts)            |                     |
 * | any commit by another connection (board-admin, a worker) | data_version check  |
 *
 * A thread write moves that thread's version and the feed version (the feed shows
 * last_activity, reply_count and `latest`); a write that can touch many threads at once moves
 * the global version, which every cached answer depends on. Search pages depend on the feed
 * version: any write may add, change or end an entry they show (the index is written in the same
 * transactions as the entries, lib/search/index.ts). The public Atom feeds (/feed.atom,
 * /e/{pid}/feed.atom, /u/{username}/feed.atom, lib/pages/atom.ts) depend on the feed version
 * too: every write in the table above moves it, and each of them can change what one of the
 * feeds shows (an entry, its author's name, its removal). Their shared pages (/e/{pid} and
 * /u/{username} with their share tags, lib/pages/share.ts) are kept the same way.
 */
interface Cached {
  stamp: string;
  body: Buffer;
}

const maxCachedThreads = 2000;
const maxTrackedThreads = 100_000; // past this, versions start over under a new global version
const maxCachedBytes = 48 * 1024 * 1024; // bounds memory on a small VPS
const maxCachedSearches = 500;
const maxSearchBytes = 8 * 1024 * 1024;
const maxCachedDocuments = 2000;
const maxDocumentBytes = 16 * 1024 * 1024;

/** A cached document that is not JSON (an Atom feed, a page with share tags), with what its conditional requests need. */
export interface CachedDocument {
  body: Buffer;
  etag: string;
  /** Unix seconds of the newest thing it shows, for Last-Modified. */
  updated: number;
}

export class ResponseCache {
  /** `dataVersion`: SQLite's PRAGMA data_version of the connection, which moves when another connection commits. */
  constructor(private readonly dataVersion: () => number) {}

  private global = 0;
  private feedVersion = 0;
  private threadVersions = new Map<number, number>();
  private feedPages = new Map<number, Cached>();
  private threads = new Map<number, Cached & { root: number }>();
  private threadBytes = 0;
  private seenDataVersion = -1;
  private searches = new StampedCache<{ body: Buffer }>(maxCachedSearches, maxSearchBytes);
  private documents = new StampedCache<CachedDocument>(maxCachedDocuments, maxDocumentBytes);
  /** Answers served from the cache and answers built, since the start (read by lib/metrics). */
  readonly tally = { feedHits: 0, feedMisses: 0, threadHits: 0, threadMisses: 0 };

  /** A write inside one thread changed what its answers and the feed show. */
  threadChanged(root: number): void {
    if (this.threadVersions.size >= maxTrackedThreads) {
      // Bounded memory on a long-running board: forgetting every version is safe once the
      // global version moves, because every cached page depends on it.
      this.threadVersions.clear();
      this.global++;
    }
    this.threadVersions.set(root, (this.threadVersions.get(root) ?? 0) + 1);
    this.feedVersion++;
  }

  /**
   * Another process (board-admin) may have written to the database: SQLite's data_version
   * changes whenever another connection commits, and then nothing cached can be trusted.
   */
  private checkOtherWriters(): void {
    const version = this.dataVersion();
    if (version !== this.seenDataVersion) {
      this.seenDataVersion = version;
      this.everythingChanged();
    }
  }

  /** A write that may change entries in many threads (author name or avatar, account deletion, a preview). */
  everythingChanged(): void {
    this.global++;
    this.feedVersion++;
  }

  feed(page: number, build: () => unknown): Buffer {
    this.checkOtherWriters();
    const stamp = this.feedStamp();
    const hit = this.feedPages.get(page);
    if (hit?.stamp === stamp) {
      this.tally.feedHits++;
      return hit.body;
    }
    this.tally.feedMisses++;
    const body = Buffer.from(JSON.stringify(build()));
    this.feedPages.set(page, { stamp, body });
    return body;
  }

  /** A search page by its key (the expression, the author filter, the page). */
  search(key: string, build: () => unknown): Buffer {
    this.checkOtherWriters();
    const stamp = this.feedStamp();
    const hit = this.searches.get(key, () => stamp);
    if (hit) return hit.body;
    const body = Buffer.from(JSON.stringify(build()));
    this.searches.set(key, stamp, { body });
    return body;
  }

  /** An Atom feed or share page by its path; `build` undefined: nothing there (404), never cached. */
  document(key: string, build: () => CachedDocument | undefined): CachedDocument | undefined {
    this.checkOtherWriters();
    const stamp = this.feedStamp();
    const hit = this.documents.get(key, () => stamp);
    if (hit) return hit;
    const built = build();
    if (built) this.documents.set(key, stamp, built);
    return built;
  }

  private feedStamp(): string {
    return `${this.global}.${this.feedVersion}`;
  }

  /**
   * A thread page by its entry. `rootOf` loads the entry's thread (undefined: no such entry) and
   * is asked only on a miss: an entry's root never changes, so a cached page knows it already.
   */
  thread(pid: number, rootOf: () => number | undefined, build: () => unknown): Buffer | undefined {
    this.checkOtherWriters();
    const hit = this.threads.get(pid);
    if (hit && hit.stamp === this.threadStamp(hit.root)) {
      this.threads.delete(pid); // keep the map in least-recently-used order
      this.threads.set(pid, hit);
      this.tally.threadHits++;
      return hit.body;
    }
    this.tally.threadMisses++;
    const root = rootOf();
    if (root === undefined) return undefined;
    const stamp = this.threadStamp(root);
    const body = Buffer.from(JSON.stringify(build()));
    if (hit) this.forget(pid, hit.body.length);
    this.threads.set(pid, { stamp, body, root });
    this.threadBytes += body.length;
    for (const [oldest, entry] of this.threads) {
      if (this.threads.size <= maxCachedThreads && this.threadBytes <= maxCachedBytes) break;
      this.forget(oldest, entry.body.length);
    }
    return body;
  }

  private threadStamp(root: number): string {
    return `${this.global}.${this.threadVersions.get(root) ?? 0}`;
  }

  private forget(pid: number, bytes: number): void {
    this.threads.delete(pid);
    this.threadBytes -= bytes;
  }
}
