import { createHmac, randomBytes } from 'node:crypto';
import { dailySecret, nextUtcMidnight, utcDay } from '../ip/daily-secret.ts';
import type { Db } from '../db/db.ts';
import { rateLimitSubject } from '../ip/address.ts';
import { logFailure } from '../log.ts';

/**
 * Every rate limit counts in one SQLite table (rate_limits), so counts hold across restarts and N
 * server processes never mean N times a limit. Windows are fixed: they start with the first request
 * that counts. A client address is never stored: its key is an HMAC of the group and its rate-limit
 * subject under the day's secret (lib/ip/daily-secret.ts), so such a window ends at UTC midnight at
 * the latest and its row goes with its day. An account's key is plain (group, uid), and so is a
 * public name's (group, another server's host or an actor's id).
 */

export interface RateRule {
  limit: number;
  windowSeconds: number;
}

export interface Counter {
  key: Buffer;
  endsWithDay: boolean;
  rule: RateRule;
}

export interface LimitStore {
  /**
   * Counts one request in each counter, all or nothing, and returns the seconds until every
   * counter allows it (0: allowed). `countRefused`: a refused request still counts (SPEC's groups:
   * hammering must not shorten the wait); otherwise a refused request changes nothing.
   */
  hit(counters: Counter[], now: number, countRefused: boolean): number;
  /**
   * The seconds until every counter would allow one more (0: allowed), counting nothing.
   * `pending`: requests on their way to being counted that already take their place in a counter.
   */
  peek(counters: Counter[], now: number, pending?: (counter: Counter) => number): number;
  keyed(group: string, text: string, rule: RateRule, now: number): Counter;
  account(group: string, uid: number, rule: RateRule): Counter;
  /** A counter of a public name (another server's host, an actor's id): its key is plain, no hash to compute. */
  named(group: string, name: string, rule: RateRule): Counter;
  prune(now: number): void;
  size(): number;
}

class Refused extends Error {
  readonly wait: number;
  constructor(wait: number) {
    super('refused');
    this.wait = wait;
  }
}

/**
 * Expired rows are swept at most once a minute from the request path (and hourly by housekeeping).
 * Past maxRememberedFull full counters in memory (see createLimitStore) the expired ones go, then all.
 */
const sweepSeconds = 60;
const maxRememberedFull = 10_000;

export interface LimitStoreOptions {
  /** Past this many rows the rows closest to their end are dropped: a flood of fresh addresses costs a bounded table. */
  maxRows?: number;
  log?: (line: string) => void;
}

/**
 * Opens the store over the board's database. When the database cannot be written (a read-only
 * file, a full disk) a request is let through uncounted rather than answered 500: reads such as
 * reset/check keep working, and every write fails on its own anyway.
 */
export function createLimitStore(db: Db, options: LimitStoreOptions = {}): LimitStore {
  const maxRows = options.maxRows ?? 100_000;
  let nextSweep = 0;
  let nextFailureLog = 0;
  let estimatedRows = -1;
  let secret: { day: string; key: Buffer } | undefined;
  /**
   * Counters this process saw full (past their limit by hit(), at it by peek()), with the end of
   * their window: only time resets a window, so a flood of refused requests costs a map lookup each,
   * not a transaction. A hit still counts where a peek saw the limit (a failed login counts in all).
   */
  const full = new Map<string, number>();
  const reached = new Map<string, number>();

  function knownFull(counters: Counter[], now: number, seen = full): number {
    let wait = 0;
    for (const counter of counters) {
      const resetAt = seen.get(counter.key.toString('latin1'));
      if (resetAt !== undefined && resetAt > now) wait = Math.max(wait, resetAt - now);
    }
    return wait;
  }

  function rememberFull(counter: Counter, resetAt: number, now: number, seen = full): void {
    if (seen.size >= maxRememberedFull) for (const [key, until] of seen) if (until <= now) seen.delete(key);
    if (seen.size >= maxRememberedFull) seen.clear();
    seen.set(counter.key.toString('latin1'), resetAt);
  }

  const secretOf = (day: string) => {
    if (secret?.day !== day) {
      try {
        secret = { day, key: dailySecret(db, day) };
      } catch {
        return randomBytes(32); // the database fails: hit() will fail open anyway, and no key may hold an address
      }
    }
    return secret.key;
  };

  function count(counter: Counter, now: number): { count: number; reset_at: number } {
    const resetAt = counter.endsWithDay
      ? Math.min(now + counter.rule.windowSeconds, nextUtcMidnight(now))
      : now + counter.rule.windowSeconds;
    return db.one<{ count: number; reset_at: number }>(
      `INSERT INTO rate_limits (key, count, reset_at) VALUES (?, 1, ?)
       ON CONFLICT (key) DO UPDATE SET count = iif(reset_at <= ?, 1, count + 1), reset_at = iif(reset_at <= ?, excluded.reset_at, reset_at)
       RETURNING count, reset_at`,
      counter.key,
      resetAt,
      now,
      now,
    )!;
  }

  function failedOpen(err: unknown, now: number): number {
    if (now >= nextFailureLog) {
      nextFailureLog = now + 60;
      if (options.log) logFailure(options.log, 'rate limits: database failed, requests pass uncounted', err);
    }
    return 0;
  }

  function keepBounded(now: number): void {
    if (now >= nextSweep) {
      nextSweep = now + sweepSeconds;
      store.prune(now);
    } else if (estimatedRows > maxRows) {
      store.prune(now);
    }
  }

  const store: LimitStore = {
    hit(counters, now, countRefused) {
      const known = knownFull(counters, now);
      if (known > 0) return known; // counting it again would change nothing but the load
      try {
        keepBounded(now);
        return db.tx(() => {
          let wait = 0;
          for (const counter of counters) {
            const row = count(counter, now);
            if (row.count === 1) estimatedRows++;
            if (row.count > counter.rule.limit) {
              wait = Math.max(wait, row.reset_at - now, 1);
              rememberFull(counter, row.reset_at, now);
            }
          }
          if (wait > 0 && !countRefused) throw new Refused(wait);
          return wait;
        });
      } catch (err) {
        if (err instanceof Refused) return err.wait;
        return failedOpen(err, now);
      }
    },
    peek(counters, now, pending) {
      const known = Math.max(knownFull(counters, now), knownFull(counters, now, reached));
      if (known > 0) return known; // a full counter stays full until its window ends, pending or not
      let wait = 0;
      try {
        for (const counter of counters) {
          const row = db.one<{ count: number; reset_at: number }>(
            'SELECT count, reset_at FROM rate_limits WHERE key = ?',
            counter.key,
          );
          const live = row !== undefined && row.reset_at > now;
          if (live && row.count >= counter.rule.limit) rememberFull(counter, row.reset_at, now, reached);
          // Pending requests without a window yet open one as long as the rule's when they are counted.
          if ((live ? row.count : 0) + (pending?.(counter) ?? 0) >= counter.rule.limit)
            wait = Math.max(wait, live ? row.reset_at - now : counter.rule.windowSeconds, 1);
        }
      } catch (err) {
        return failedOpen(err, now);
      }
      return wait;
    },
    keyed(group, text, rule, now) {
      const key = createHmac('sha256', secretOf(utcDay(now)))
        .update(group)
        .update('\n')
        .update(text)
        .digest()
        .subarray(0, 16);
      return { key, endsWithDay: true, rule };
    },
    account(group, uid, rule) {
      return store.named(group, String(uid), rule);
    },
    named(group, name, rule) {
      return { key: Buffer.from(`${group}\n${name}`), endsWithDay: false, rule };
    },
    prune(now) {
      // A row of a past day is expired too: address windows end at midnight.
      db.run('DELETE FROM rate_limits WHERE reset_at <= ?', now);
      let rows = store.size();
      if (rows > maxRows) {
        const keep = Math.floor(maxRows * 0.9);
        db.run(
          'DELETE FROM rate_limits WHERE key IN (SELECT key FROM rate_limits ORDER BY reset_at LIMIT ?)',
          rows - keep,
        );
        rows = keep;
      }
      estimatedRows = rows;
    },
    size: () => db.value('SELECT count(*) FROM rate_limits'),
  };
  return store;
}

export interface RateLimiter<G extends string = RateGroup> {
  hit(group: G, ip: string, now: number): number;
  size(): number;
}

/** A per-address rule; `scaled`: the board's own addition, which BOARD_LIMITS scales and 0 lifts. */
export interface AddressRateRule extends RateRule {
  scaled?: boolean;
  counts?: string;
}

export function scaledLimit(limit: number, factor: number): number {
  return Math.max(1, Math.round(limit * factor));
}

/**
 * Per-address limits over the shared store. Every request to a group counts, refused ones too,
 * so hammering does not shorten the wait. SPEC's groups always hold; `scaled` groups follow
 * `limitsFactor` (BOARD_LIMITS).
 */
export function createRateLimiter<G extends string>(
  store: LimitStore,
  rules: Readonly<Record<G, AddressRateRule>>,
  limitsFactor = 1,
): RateLimiter<G> {
  return {
    hit(group, ip, now) {
      const rule = rules[group];
      if (!rule) throw new Error(`no rate rule for ${group}`);
      if (rule.scaled && limitsFactor === 0) return 0;
      const limit = rule.scaled ? scaledLimit(rule.limit, limitsFactor) : rule.limit;
      return store.hit(
        [store.keyed(group, rateLimitSubject(ip), { limit, windowSeconds: rule.windowSeconds }, now)],
        now,
        true,
      );
    },
    size: () => store.size(),
  };
}

/**
 * docs/API.md "Rate limits": SPEC's 20 a minute for login, registration and reset, 10 a minute for
 * reports; and search, 30 a minute (a search that finds nothing reads the index to its end).
 */
export const boardRateRules = {
  login: { limit: 20, windowSeconds: 60, counts: 'Anmeldeversuche' },
  newuser: { limit: 20, windowSeconds: 60, counts: 'Registrierungen' },
  reset: { limit: 20, windowSeconds: 60, counts: 'Versuche mit Links zum Zurücksetzen' },
  report: { limit: 10, windowSeconds: 60, counts: 'Meldungen' },
  search: { limit: 30, windowSeconds: 60, scaled: true, counts: 'Suchanfragen' },
} as const satisfies Record<string, AddressRateRule>;

export function rateLimitMessage(group: RateGroup, limitsFactor: number, wait: number): string {
  const rule: AddressRateRule = boardRateRules[group];
  const limit = rule.scaled ? scaledLimit(rule.limit, limitsFactor) : rule.limit;
  return `Zu viele ${rule.counts}: höchstens ${limit} pro Minute von einer Adresse. Bitte warte noch ${waitText(wait)}.`;
}

export function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? 'eine Sekunde' : `${seconds} Sekunden`;
  if (seconds < 2 * 3600) {
    const minutes = Math.ceil(seconds / 60);
    return minutes === 1 ? 'eine Minute' : `${minutes} Minuten`;
  }
  if (seconds < 2 * 86_400) return `${Math.ceil(seconds / 3600)} Stunden`;
  return `${Math.ceil(seconds / 86_400)} Tage`;
}

export type RateGroup = keyof typeof boardRateRules;
