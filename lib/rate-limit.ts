import { rateLimitSubject } from './ip/address.ts';

/** Per-IP fixed-window counters, one bucket per group and address (an IPv6 client: its /64). */
export interface RateLimiter<G extends string = RateGroup> {
  /** Counts one request; returns the seconds to wait when over the limit, else 0. */
  hit(group: G, ip: string, now: number): number;
  /** Buckets held in memory (for tests and monitoring). */
  size(): number;
}

export interface RateRule {
  limit: number;
  windowSeconds: number;
}

interface Bucket {
  count: number;
  resetAt: number;
}

/**
 * A fixed window per (group, IP). Memory stays bounded: expired buckets are swept once a
 * minute, and past maxBuckets the bucket whose window started longest ago is dropped, in O(1),
 * so a flood of fresh addresses costs no more per request than one address does.
 */
export function createRateLimiter<G extends string>(rules: Readonly<Record<G, RateRule>>, maxBuckets = 100_000): RateLimiter<G> {
  // Insertion order is window-start order: a bucket is re-inserted whenever its window restarts.
  const buckets = new Map<string, Bucket>();
  let nextSweep = 0;

  function sweepExpired(now: number): void {
    for (const [key, bucket] of buckets) if (bucket.resetAt <= now) buckets.delete(key);
    nextSweep = now + 60;
  }

  function startWindow(key: string, rule: RateRule, now: number): Bucket {
    const bucket = { count: 0, resetAt: now + rule.windowSeconds };
    buckets.delete(key);
    buckets.set(key, bucket);
    if (buckets.size > maxBuckets) buckets.delete(buckets.keys().next().value!);
    return bucket;
  }

  return {
    hit(group, ip, now) {
      const rule = rules[group];
      if (!rule) throw new Error(`no rate rule for ${group}`);
      if (now >= nextSweep) sweepExpired(now);
      const key = `${group} ${rateLimitSubject(ip)}`;
      let bucket = buckets.get(key);
      if (!bucket || bucket.resetAt <= now) bucket = startWindow(key, rule, now);
      bucket.count++;
      return bucket.count > rule.limit ? Math.max(1, bucket.resetAt - now) : 0;
    },
    size: () => buckets.size,
  };
}

/** docs/API.md "Rate limits": 20 a minute for login, registration and reset; 10 a minute for reports; 3 exports an hour. */
export const boardRateRules = {
  login: { limit: 20, windowSeconds: 60 },
  newuser: { limit: 20, windowSeconds: 60 },
  reset: { limit: 20, windowSeconds: 60 },
  report: { limit: 10, windowSeconds: 60 },
  // Keyed by account, not address (lib/api/export.ts): a data export reads the whole account, so
  // 3 an hour. A privacy and cost limit of its own, always on.
  export: { limit: 3, windowSeconds: 3600 },
} as const satisfies Record<string, RateRule>;

/** A rate-limit group's name: a typo in a route's rateLimit is a type error, not a 500. */
export type RateGroup = keyof typeof boardRateRules;
