/**
 * A least-recently-used map of serialised answers, bounded by count and by bytes. Each value was
 * built under a stamp (the response cache's versions, lib/response-cache.ts) and is used only
 * while the stamp it depends on is still the current one.
 */
export class StampedCache<T extends { body: Buffer }> {
  private readonly values = new Map<string, T & { stamp: string }>();
  private bytes = 0;

  constructor(private readonly maxValues: number, private readonly maxBytes: number) {}

  /** The value for `key` if `currentStamp(value)` is still the stamp it was built under. */
  get(key: string, currentStamp: (value: T) => string): T | undefined {
    const hit = this.values.get(key);
    if (!hit) return undefined;
    this.forget(key);
    if (hit.stamp !== currentStamp(hit)) return undefined;
    this.values.set(key, hit); // back in, as the most recently used
    this.bytes += hit.body.length;
    return hit;
  }

  set(key: string, stamp: string, value: T): void {
    this.forget(key);
    this.values.set(key, { ...value, stamp });
    this.bytes += value.body.length;
    for (const [oldest] of this.values) {
      if (this.values.size <= this.maxValues && this.bytes <= this.maxBytes) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const value = this.values.get(key);
    if (!value) return;
    this.values.delete(key);
    this.bytes -= value.body.length;
  }
}
