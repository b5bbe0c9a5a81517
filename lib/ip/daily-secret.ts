import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';

/**
 * The random key of one UTC day (table daily_secrets), made on the day's first use and deleted
 * once the day is over (lib/stats/impressions.ts flushImpressions). Visitor hashes and the rate-limit
 * keys of client addresses are HMACs under it, so nothing kept past its day leads back to an
 * address. Every server process on the database gets the same key for the same day.
 */
export function dailySecret(db: Db, day: string): Buffer {
  return db.tx(() => {
    db.run('INSERT OR IGNORE INTO daily_secrets (day, secret) VALUES (?, ?)', day, randomBytes(32));
    return db.value<Buffer>('SELECT secret FROM daily_secrets WHERE day = ?', day);
  });
}

/** UTC 'YYYY-MM-DD' of a Unix time in seconds. */
export function utcDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/** The first second of the next UTC day. */
export function nextUtcMidnight(seconds: number): number {
  return (Math.floor(seconds / 86_400) + 1) * 86_400;
}
