import { randomBytes } from 'node:crypto';
import type { Db } from '../db/db.ts';

/**
 * The random key of one UTC day (table daily_secrets), made at the day's first use and deleted when
 * the day is over. Visitor hashes and the rate-limit keys of addresses are HMACs under it, so
 * nothing kept past its day leads back to an address; every process on the database gets the same
 * key.
 */
export function dailySecret(db: Db, day: string): Buffer {
  return db.tx(() => {
    db.run('INSERT OR IGNORE INTO daily_secrets (day, secret) VALUES (?, ?)', day, randomBytes(32));
    return db.value<Buffer>('SELECT secret FROM daily_secrets WHERE day = ?', day);
  });
}

export function utcDay(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

export function nextUtcMidnight(seconds: number): number {
  return (Math.floor(seconds / 86_400) + 1) * 86_400;
}
