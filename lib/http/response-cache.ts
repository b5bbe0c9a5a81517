import type { ChangeListener, Db } from '../db/db.ts';
import { LruPages } from './lru-pages.ts';

/**
 * Serialised answers read far more often than written (feed pages, threads, user feeds, search
 * pages; Atom feeds, share pages and the drawn HTML pages as documents), kept until a write changes
 * what they show. One cache per database connection (responsesOf), registered on its change hook
 * (`db.changes`, lib/db/db.ts), which every write calls in its own synchronous call, so no reader
 * sees an old answer afterwards; another connection's commit is seen by the data_version check.
 * test/api/response-cache-writes.test.ts holds every write route and background write to it.
 *
 * Versions: a thread write moves that thread's and the feed's; a write that can touch many threads
 * (a rename, an avatar, a deletion, a preview) and another process's commit move the global one,
 * which every answer depends on. A user feed page depends on its threads' versions and its
 * author's; search pages and documents on the feed version; the drawn pages besides on a version
 * for what only they show (vote counts, the moderation log). Threads, user feeds, search pages and
 * documents each live in one LruPages store, bounded by count and bytes.
 */
interface Cached {
  global: number;
  version: number;
  body: Buffer;
}

/** The versions a page was built under; a page is kept only if they are still current when it is done. */
export interface PageVersions {
  global: number;
  version: number;
  pagesOnly: number;
}

const maxCachedThreads = 2000;
const maxCachedUserFeeds = 2000;
const maxTrackedThreads = 100_000; // past this, versions start over under a new global version
const maxCachedBytes = 48 * 1024 * 1024;
const maxUserFeedBytes = 16 * 1024 * 1024;
const maxCachedSearches = 500;
const maxSearchBytes = 8 * 1024 * 1024;
const maxCachedDocuments = 2000;
const maxDocumentBytes = 16 * 1024 * 1024;
const maxCachedPages = 2000;
const maxPageBytes = 32 * 1024 * 1024;

export interface CachedDocument {
  body: Buffer;
  etag: string;
  updated: number;
}

export interface DrawnPage extends CachedDocument {
  status: number;
}

export class ResponseCache implements ChangeListener {
  private readonly dataVersion: () => number;
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

  votesChanged(): void {
    this.pagesOnlyVersion++;
  }

  modlogChanged(): void {
    this.pagesOnlyVersion++;
  }

  pageVersions(): PageVersions {
    this.checkOtherWriters();
    return { global: this.global, version: this.feedVersion, pagesOnly: this.pagesOnlyVersion };
  }

  private isPageCurrent(page: PageVersions): boolean {
    return this.isFeedCurrent(page) && page.pagesOnly === this.pagesOnlyVersion;
  }

  cachedPage(key: string): DrawnPage | undefined {
    this.checkOtherWriters();
    const hit = this.pages.get(key);
    if (!hit || !this.isPageCurrent(hit)) return undefined;
    this.tally.pageHits++;
    return hit;
  }

  keepPage(key: string, asked: PageVersions, page: DrawnPage): void {
    if (this.isPageCurrent(asked)) this.pages.set(key, { ...page, ...asked });
  }

  page(key: string, build: () => DrawnPage | undefined): DrawnPage | undefined {
    const hit = this.cachedPage(key);
    if (hit) return hit;
    this.tally.pageMisses++;
    const asked = this.pageVersions();
    const built = build();
    if (built) this.keepPage(key, asked, built);
    return built;
  }

  threadChanged(root: number): void {
    if (this.threadVersions.size >= maxTrackedThreads) this.forgetVersions();
    this.threadVersions.set(root, (this.threadVersions.get(root) ?? 0) + 1);
    this.feedVersion++;
  }

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

  private checkOtherWriters(): void {
    const version = this.dataVersion();
    if (version !== this.seenDataVersion) {
      this.seenDataVersion = version;
      this.everythingChanged();
    }
  }

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

  cachedFeed(page: number): Buffer | undefined {
    this.checkOtherWriters();
    const hit = this.feedPages.get(page);
    if (!hit || !this.isFeedCurrent(hit)) return undefined;
    this.tally.feedHits++;
    return hit.body;
  }

  cachedThread(pid: number): Buffer | undefined {
    this.checkOtherWriters();
    const hit = this.threads.get(pid);
    if (!hit || hit.global !== this.global || hit.version !== (this.threadVersions.get(hit.root) ?? 0))
      return undefined;
    this.tally.threadHits++;
    return hit.body;
  }

  /**
   * A search page by its key (expression, author filter, page), its match run on a search thread
   * and kept only if no write came in between. Requests for one key under the same versions share a
   * build in progress, so after a write the many readers of a popular search cost one search.
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

export function responsesOf(db: Db): ResponseCache {
  let cache = caches.get(db.raw);
  if (!cache) {
    cache = new ResponseCache(() => db.dataVersionNow());
    db.onChange(cache);
    caches.set(db.raw, cache);
  }
  return cache;
}
