import type { ChangeListener, Db } from '../db/db.ts';
import { LruPages } from './lru-pages.ts';

/**
 * Serialised answers that are read far more often than written (feed pages, threads, user feeds,
 * search pages as JSON; Atom feeds and share pages as documents), kept until a write changes what
 * they show. One cache per database connection (responsesOf(db)), registered on the connection's
 * change hook (`db.changes`, lib/db/db.ts). Every write that can
 * change an entry's JSON tells the hook in the same synchronous call as the write, so no reader
 * can see the old answer afterwards: threadChanged(root) for a write inside one thread,
 * userChanged(uid) when an author's list of live entries gains or loses one, everythingChanged()
 * for a write that can touch many threads at once (a rename, an avatar, an account's deletion, a
 * link preview). Another connection's commit (board-admin, a worker) is seen by the data_version
 * check. test/api/response-cache-writes.test.ts holds the list: a case for every write route of the
 * route table and the background writes, each checked to leave every cached answer equal to a
 * fresh one; a write route without a case fails it.
 *
 * A thread write moves that thread's version and the feed version (the feed shows
 * last_activity, reply_count and `latest`); a write that can touch many threads at once moves
 * the global version, which every cached answer depends on. A user feed page depends on the
 * versions of the threads its entries belong to (a reply elsewhere in the thread moves an
 * entry's last_activity and reply_count) and on its author's version (which entries it lists).
 * Search pages depend on the feed version: any write may add, change or end an entry they show
 * (the index is written in the same transactions as the entries, lib/search/index.ts). The
 * public Atom feeds (/feed.atom, /e/{pid}/feed.atom, /u/{username}/feed.atom, lib/pages/atom.ts)
 * depend on the feed version too: every write that tells the cache moves it, and each of them can
 * change what one of the feeds shows (an entry, its author's name, its removal). Their shared
 * pages (/e/{pid} and /u/{username} with their share tags, lib/pages/share.ts) are kept the same
 * way. Another process's commit moves the global version, so it
 * drops every kind at once, search pages and documents included.
 *
 * The server-drawn HTML pages (/, /e/{pid}, /u/{username}, /suche?q=…, /modlog, lib/pages/public.ts,
 * a gone entry's 410 page among them) are documents too, under the feed version, and under one
 * more version besides for what only they show: vote counts, which the JSON does not, so castVote
 * (lib/entries/votes.ts) calls votesChanged() and only the pages are drawn again; and the
 * moderation log, whose JSON is not cached, so writeModlog (lib/modlog/modlog.ts) calls
 * modlogChanged().
 *
 * Threads, user feeds, search pages and documents each live in one LruPages store (lib/http/lru-pages.ts),
 * bounded by count and bytes; feed pages are bounded by the page limit (maxFeedPage).
 */
/** A cached answer and the versions it was built under (numbers: a cache check allocates nothing). */
interface Cached {
  global: number;
  version: number;
  body: Buffer;
}

/** The versions a page was built under; a page is kept only if they are still current when it is done. */
export interface PageVersions {
  global: number;
  version: number;
  /** What only the drawn pages show: vote counts, the moderation log. */
  pagesOnly: number;
}

const maxCachedThreads = 2000;
const maxCachedUserFeeds = 2000;
const maxTrackedThreads = 100_000; // past this, versions start over under a new global version
const maxCachedBytes = 48 * 1024 * 1024; // bounds memory on a small VPS
const maxUserFeedBytes = 16 * 1024 * 1024;
const maxCachedSearches = 500;
const maxSearchBytes = 8 * 1024 * 1024;
const maxCachedDocuments = 2000;
const maxDocumentBytes = 16 * 1024 * 1024;
const maxCachedPages = 2000;
const maxPageBytes = 32 * 1024 * 1024;

/** A cached document that is not JSON (an Atom feed, a page with share tags), with what its conditional requests need. */
export interface CachedDocument {
  body: Buffer;
  etag: string;
  /** Unix seconds of the newest thing it shows, for Last-Modified. */
  updated: number;
}

/** A server-drawn page (lib/pages/public.ts) and the status it answers: 200, or 410 for a gone entry's own page. */
export interface DrawnPage extends CachedDocument {
  status: number;
}

export class ResponseCache implements ChangeListener {
  private readonly dataVersion: () => number;
  /** `dataVersion`: SQLite's PRAGMA data_version of the connection, which moves when another connection commits. */
  constructor(dataVersion: () => number) {
    this.dataVersion = dataVersion;
  }

  private global = 0;
  private feedVersion = 0;
  private threadVersions = new Map<number, number>();
  private userVersions = new Map<number, number>();
  private feedPages = new Map<number, Cached>();
  private threads = new LruPages<number, Cached & { root: number }>(maxCachedThreads, maxCachedBytes);
  private userFeeds = new LruPages<string, Cached & { threads: number; roots: number[] }>(
    maxCachedUserFeeds,
    maxUserFeedBytes,
  );
  private seenDataVersion = -1;
  private searches = new LruPages<string, Cached>(maxCachedSearches, maxSearchBytes);
  /** Search pages being built now, by versions and key (bounded by the search line: lib/search/threads.ts). */
  private searchesBuilding = new Map<string, Promise<Buffer>>();
  private documents = new LruPages<string, Cached & CachedDocument>(maxCachedDocuments, maxDocumentBytes);
  private pagesOnlyVersion = 0;
  private pages = new LruPages<string, PageVersions & DrawnPage>(maxCachedPages, maxPageBytes);
  /** Answers served from the cache and answers built, since the start (read by lib/metrics). */
  readonly tally = {
    feedHits: 0,
    feedMisses: 0,
    threadHits: 0,
    threadMisses: 0,
    userFeedHits: 0,
    userFeedMisses: 0,
    searchHits: 0,
    searchMisses: 0,
    documentHits: 0,
    documentMisses: 0,
    pageHits: 0,
    pageMisses: 0,
  };

  /** A vote moved a tally: the HTML pages show the counts (the JSON does not). */
  votesChanged(): void {
    this.pagesOnlyVersion++;
  }

  /** A moderation log row was written: the drawn /modlog pages show it (its JSON is not cached). */
  modlogChanged(): void {
    this.pagesOnlyVersion++;
  }

  /** The versions a page built now depends on (for a page built over an await: keepPage checks them again). */
  pageVersions(): PageVersions {
    this.checkOtherWriters();
    return { global: this.global, version: this.feedVersion, pagesOnly: this.pagesOnlyVersion };
  }

  private isPageCurrent(page: PageVersions): boolean {
    return this.isFeedCurrent(page) && page.pagesOnly === this.pagesOnlyVersion;
  }

  /** A server-drawn page by its key (the path and query it answers) if it is cached and current. */
  cachedPage(key: string): DrawnPage | undefined {
    this.checkOtherWriters();
    const hit = this.pages.get(key);
    if (!hit || !this.isPageCurrent(hit)) return undefined;
    this.tally.pageHits++;
    return hit;
  }

  /** Keeps a page built under `asked` unless a write came in between. */
  keepPage(key: string, asked: PageVersions, page: DrawnPage): void {
    if (this.isPageCurrent(asked)) this.pages.set(key, { ...page, ...asked });
  }

  /** A page from the cache, else built now and kept; `build` undefined: nothing there (404), never cached. */
  page(key: string, build: () => DrawnPage | undefined): DrawnPage | undefined {
    const hit = this.cachedPage(key);
    if (hit) return hit;
    this.tally.pageMisses++;
    const asked = this.pageVersions();
    const built = build();
    if (built) this.keepPage(key, asked, built);
    return built;
  }

  /** A write inside one thread changed what its answers and the feed show. */
  threadChanged(root: number): void {
    if (this.threadVersions.size >= maxTrackedThreads) this.forgetVersions();
    this.threadVersions.set(root, (this.threadVersions.get(root) ?? 0) + 1);
    this.feedVersion++;
  }

  /** A user's list of entries changed (one added or deleted): every page of their feed may shift. */
  userChanged(uid: number): void {
    if (this.userVersions.size >= maxTrackedThreads) this.forgetVersions();
    this.userVersions.set(uid, (this.userVersions.get(uid) ?? 0) + 1);
  }

  /**
   * Bounded memory on a long-running board: forgetting every version is safe once the global
   * version moves, because every cached page depends on it.
   */
  private forgetVersions(): void {
    this.threadVersions.clear();
    this.userVersions.clear();
    this.global++;
  }

  /**
   * Another process (board-admin, another worker) may have written to the database: SQLite's
   * data_version changes whenever another connection commits, and then nothing cached can be trusted.
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
    const hit = this.cachedFeed(page);
    if (hit) return hit;
    this.tally.feedMisses++;
    const body = Buffer.from(JSON.stringify(build()));
    this.feedPages.set(page, { global: this.global, version: this.feedVersion, body });
    return body;
  }

  /** A feed page if it is cached and current, else undefined (the fast path, lib/http/fast-path.ts). */
  cachedFeed(page: number): Buffer | undefined {
    this.checkOtherWriters();
    const hit = this.feedPages.get(page);
    if (!hit || !this.isFeedCurrent(hit)) return undefined;
    this.tally.feedHits++;
    return hit.body;
  }

  /** A thread page if it is cached and current, else undefined (the fast path). */
  cachedThread(pid: number): Buffer | undefined {
    this.checkOtherWriters();
    const hit = this.threads.get(pid);
    if (!hit || hit.global !== this.global || hit.version !== (this.threadVersions.get(hit.root) ?? 0))
      return undefined;
    this.tally.threadHits++;
    return hit.body;
  }

  /**
   * A search page by its key (the expression, the author filter, the page). `build` runs the match
   * on a search thread (lib/search/threads.ts), so the page is built under the versions of the
   * moment it was asked for and kept only if no write came in between. Requests for one key under
   * the same versions while it is built share that build (counted as hits): after a write, the
   * many readers of a popular search cost one search, not one each in a bounded line.
   */
  search(key: string, build: () => Promise<unknown>): Promise<Buffer> {
    this.checkOtherWriters();
    const hit = this.searches.get(key);
    if (hit && this.isFeedCurrent(hit)) {
      this.tally.searchHits++;
      return Promise.resolve(hit.body);
    }
    const asked = { global: this.global, version: this.feedVersion };
    const buildKey = `${asked.global}:${asked.version}\n${key}`;
    const building = this.searchesBuilding.get(buildKey);
    if (building) {
      this.tally.searchHits++;
      return building;
    }
    this.tally.searchMisses++;
    const built = build()
      .then((page) => {
        const body = Buffer.from(JSON.stringify(page));
        if (this.isFeedCurrent(asked)) this.searches.set(key, { ...asked, body });
        return body;
      })
      .finally(() => this.searchesBuilding.delete(buildKey));
    this.searchesBuilding.set(buildKey, built);
    return built;
  }

  /** An Atom feed or share page by its path; `build` undefined: nothing there (404), never cached. */
  document(key: string, build: () => CachedDocument | undefined): CachedDocument | undefined {
    this.checkOtherWriters();
    const hit = this.documents.get(key);
    if (hit && this.isFeedCurrent(hit)) {
      this.tally.documentHits++;
      return hit;
    }
    this.tally.documentMisses++;
    const built = build();
    if (built) this.documents.set(key, { ...built, global: this.global, version: this.feedVersion });
    return built;
  }

  /** A page that depends on the feed version (feed, search, documents) is current. */
  private isFeedCurrent(page: Pick<Cached, 'global' | 'version'>): boolean {
    return page.global === this.global && page.version === this.feedVersion;
  }

  /**
   * A thread page by its entry. `rootOf` loads the entry's thread (undefined: no such entry) and
   * is asked only on a miss: an entry's root never changes, so a cached page knows it already.
   */
  thread(pid: number, rootOf: () => number | undefined, build: () => unknown): Buffer | undefined {
    const hit = this.cachedThread(pid);
    if (hit) return hit;
    this.tally.threadMisses++;
    const root = rootOf();
    if (root === undefined) return undefined;
    const version = this.threadVersions.get(root) ?? 0;
    const body = Buffer.from(JSON.stringify(build()));
    this.threads.set(pid, { global: this.global, version, body, root });
    return body;
  }

  /** One page of a user's entries; `build` reads them and the threads they belong to. */
  userFeed(uid: number, page: number, build: () => { entries: unknown[]; roots: number[] }): Buffer {
    this.checkOtherWriters();
    const key = `${uid}:${page}`;
    const hit = this.userFeeds.get(key);
    if (
      hit &&
      hit.global === this.global &&
      hit.version === (this.userVersions.get(uid) ?? 0) &&
      hit.threads === this.threadsVersion(hit.roots)
    ) {
      this.tally.userFeedHits++;
      return hit.body;
    }
    this.tally.userFeedMisses++;
    const { entries, roots } = build();
    const body = Buffer.from(JSON.stringify(entries));
    this.userFeeds.set(key, {
      global: this.global,
      version: this.userVersions.get(uid) ?? 0,
      threads: this.threadsVersion(roots),
      body,
      roots,
    });
    return body;
  }

  /** Versions only grow, so their sum over a page's threads moves whenever one of them does. */
  private threadsVersion(roots: number[]): number {
    let threads = 0;
    for (const root of roots) threads += this.threadVersions.get(root) ?? 0;
    return threads;
  }
}

/** Keyed by the connection itself: a wrapper of it (lib/http/session-bound-db.ts) shares its cache. */
const caches = new WeakMap<Db['raw'], ResponseCache>();

/** The response cache of a database connection: made at its first use and registered on the connection's change hook. */
export function responsesOf(db: Db): ResponseCache {
  let cache = caches.get(db.raw);
  if (!cache) {
    cache = new ResponseCache(() => db.dataVersionNow());
    db.onChange(cache);
    caches.set(db.raw, cache);
  }
  return cache;
}
