/** Per-IP fixed-window counters, one bucket per group and address. */
export interface RateLimiter {
  /** Counts one request; returns the seconds to wait when over the limit, else 0. */
  hit(group: string, ip: string, now: number): number;
}

export interface RateRule {
  limit: number;
  windowSeconds: number;
}

/**
 * A fixed window per (group, IP). Memory stays bounded: expired buckets are swept, and past
 * maxBuckets the oldest are dropped (an attacker with many addresses only resets their own counts).
 */
export function createRateLimiter(rules: Record<string, RateRule>, maxBuckets = 100_000): RateLimiter {
  const buckets = new Map<string, { count: number; resetAt: number }>();
  let nextSweep = 0;

  function sweep(now: number) {
    for (const [key, bucket] of buckets) if (bucket.resetAt <= now) buckets.delete(key);
    for (const key of buckets.keys()) {
      if (buckets.size <= maxBuckets) break;
      buckets.delete(key);
    }
    nextSweep = now + 60;
  }

  return {
    hit(group, ip, now) {
      const rule = rules[group];
      if (!rule) throw new Error(`no rate rule for ${group}`);
      if (now >= nextSweep || buckets.size > maxBuckets) sweep(now);
      const key = `${group} ${ip}`;
      let bucket = buckets.get(key);
      if (!bucket || bucket.resetAt <= now) {
        bucket = { count: 0, resetAt: now + rule.windowSeconds };
        buckets.delete(key);
        buckets.set(key, bucket);
      }
      bucket.count++;
      return bucket.count > rule.limit ? Math.max(1, bucket.resetAt - now) : 0;
    },
  };
}

/** SPEC §8: 20 a minute for login, registration and reset; 10 a minute for reports. */
export const boardRateRules: Record<string, RateRule> = {
  login: { limit: 20, windowSeconds: 60 },
  newuser: { limit: 20, windowSeconds: 60 },
  reset: { limit: 20, windowSeconds: 60 },
  report: { limit: 10, windowSeconds: 60 },
};
