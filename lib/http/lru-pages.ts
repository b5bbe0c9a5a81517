/**
 * The response cache's one store of serialised pages (lib/http/response-cache.ts): by key in
 * least-recently-used order, bounded by count and by bytes. It only keeps pages; whether a page
 * is still current is the cache's question (the versions a page was built under), asked on
 * every hit. A stale page stays until it is replaced or falls off the old end.
 */
export class LruPages<K, V extends { body: Buffer }> {
  private pages = new Map<K, V>();
  private bytes = 0;
  private readonly maxPages: number;
  private readonly maxBytes: number;
  constructor(maxPages: number, maxBytes: number) {
    this.maxPages = maxPages;
    this.maxBytes = maxBytes;
  }

  get(key: K): V | undefined {
    const page = this.pages.get(key);
    if (page) {
      this.pages.delete(key);
      this.pages.set(key, page);
    }
    return page;
  }

  set(key: K, page: V): void {
    const old = this.pages.get(key);
    if (old) this.forget(key, old);
    this.pages.set(key, page);
    this.bytes += page.body.length;
    for (const [oldest, entry] of this.pages) {
      if (this.pages.size <= this.maxPages && this.bytes <= this.maxBytes) break;
      this.forget(oldest, entry);
    }
  }

  private forget(key: K, page: V): void {
    this.pages.delete(key);
    this.bytes -= page.body.length;
  }
}
