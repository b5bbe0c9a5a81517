/**
 * Serialised JSON of the hot API answers (feed pages and threads), kept until a write changes
 * what they show. One cache per database connection (`db.responses`). Every write that can
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
 * the global version, which every cached answer depends on.
 */
interface Cached {
  stamp: string;
  body: Buffer;
}

const maxCachedThreads = 2000;
const maxTrackedThreads = 100_000; // past this, versions start over under a new global version
const maxCachedBytes = 48 * 1024 * 1024; // bounds memory on a small VPS

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
    const stamp = `${this.global}.${this.feedVersion}`;
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
