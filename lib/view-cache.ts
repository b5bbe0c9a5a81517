import type { Db } from './db.ts';

/**
 * Serialised JSON of the hot pages (feed pages and threads), kept until a write changes what
 * they show. Every write that can change an entry's JSON calls one of the invalidate functions
 * in the same synchronous call as the write, so no reader can see the old page afterwards:
 * - a write inside one thread (create, reply, edit, delete, bump) moves that thread's version
 *   and the feed version (the feed shows last_activity, reply_count and `latest`);
 * - a write that can touch many threads at once (rename, avatar, account deletion, a new
 *   preview record) moves the global version, which every cached page depends on.
 */
interface Cached {
  stamp: string;
  body: Buffer;
}

const maxCachedThreads = 2000;
const maxTrackedThreads = 100_000; // past this, versions start over under a new global version
const maxCachedBytes = 48 * 1024 * 1024; // bounds memory on a small VPS

class ViewCache {
  constructor(private readonly db: Db) {}

  private global = 0;
  private feedVersion = 0;
  private threadVersions = new Map<number, number>();
  private feedPages = new Map<number, Cached>();
  private threads = new Map<number, Cached & { root: number }>();
  private threadBytes = 0;
  private dataVersion = -1;

  touchThread(root: number): void {
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
    const version = this.db.one<{ data_version: number }>('PRAGMA data_version')!.data_version;
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.touchEverything();
    }
  }

  touchEverything(): void {
    this.global++;
    this.feedVersion++;
  }

  feed(page: number, build: () => unknown): Buffer {
    this.checkOtherWriters();
    const stamp = `${this.global}.${this.feedVersion}`;
    const hit = this.feedPages.get(page);
    if (hit?.stamp === stamp) return hit.body;
    const body = Buffer.from(JSON.stringify(build()));
    this.feedPages.set(page, { stamp, body });
    return body;
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
      return hit.body;
    }
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

const caches = new WeakMap<Db, ViewCache>();

/** The cache belonging to one database (tests run several boards in one process). */
export function viewCache(db: Db): ViewCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ViewCache(db);
    caches.set(db, cache);
  }
  return cache;
}

/** A write inside one thread changed what its pages and the feed show. */
export function invalidateThread(db: Db, root: number): void {
  viewCache(db).touchThread(root);
}

/** A write that may change entries in many threads (author name or avatar, account deletion, preview). */
export function invalidateAllViews(db: Db): void {
  viewCache(db).touchEverything();
}
