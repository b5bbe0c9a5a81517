import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { AsnDb } from './asn.ts';
import { dailySecret, utcDay } from '../ip/daily-secret.ts';
import type { Db } from '../db/db.ts';
import { rateLimitSubject } from '../ip/address.ts';

import { maxVisitorsPerAddress, maxVisitorsPerDay, statsWindowDays } from '../product.ts';
import { scaledLimit } from '../limits/rate-limit.ts';
import { logFailure } from '../log.ts';
import type { JobDeps } from '../host/job-runs.ts';

/**
 * Page impressions and daily visitors, counted in memory and written in one small transaction every
 * few seconds (and on shutdown). A visitor is an HMAC-SHA-256 of (IP, User-Agent) under a random
 * secret that lives only for its UTC day, and an address brings at most maxVisitorsPerAddress of
 * them, counted under another HMAC; the address itself is never kept. Only the day's counts outlive
 * it: the hashes and the secret are deleted once the day is over.
 */

const botAgent = /bot|crawl|spider|slurp|preview/i;
export const flushIntervalMs = 5000;

export interface PendingDay {
  impressions: number;
  visitors: number;
  asns: Map<number, { name: string; visitors: number }>;
  candidates: VisitorCandidate[];
}

interface VisitorCandidate {
  hash: Buffer;
  addressHash: Buffer;
  asn: number;
  name: string;
}

interface OpenDay {
  day: string;
  secret: Buffer;
  /**
   * The secret as a key object, made once a day: an HMAC keyed with a Buffer imports the key on
   * every call, which cost a page several times the hash itself (bench/results.md).
   */
  key: KeyObject;
  seen: Set<string>;
  perAddress: Map<string, number>;
  full?: boolean;
}

export interface ImpressionDeps extends JobDeps {
  impressions: ImpressionTally;
  asn: Pick<AsnDb, 'lookup'>;
}

export interface TallySettings {
  limitsFactor: number;
  sweepsFinishedDays: boolean;
  maxVisitorsPerDay?: number;
}

export class ImpressionTally {
  readonly maxVisitorsPerDay: number;
  readonly maxVisitorsPerAddress: number;
  readonly sweepsFinishedDays: boolean;
  readonly pending = new Map<string, PendingDay>();
  today: OpenDay | undefined;
  cleanedFor = '';

  constructor(settings: TallySettings) {
    this.maxVisitorsPerDay = settings.maxVisitorsPerDay ?? maxVisitorsPerDay;
    this.maxVisitorsPerAddress =
      settings.limitsFactor === 0 ? Infinity : scaledLimit(maxVisitorsPerAddress, settings.limitsFactor);
    this.sweepsFinishedDays = settings.sweepsFinishedDays;
  }
}

export { utcDay };

export function isBotAgent(userAgent: string): boolean {
  return botAgent.test(userAgent);
}

export function countImpression(app: ImpressionDeps, ip: string, userAgent: string): boolean {
  if (isBotAgent(userAgent)) return false;
  const tally = app.impressions;
  const day = utcDay(app.clock.now());
  try {
    if (tally.today?.day !== day) tally.today = openDay(app.db, day, tally.pending.get(day));
  } catch (err) {
    logFailure(app.log, `statistics: cannot open day ${day}`, err);
    return false;
  }
  const counts = pendingDay(tally, day);
  counts.impressions++;
  const hash = createHmac('sha256', tally.today.key).update(ip).update('\n').update(userAgent).digest();
  const key = seenKey(hash);
  if (tally.today.seen.has(key)) return true;
  if (tally.today.seen.size >= tally.maxVisitorsPerDay) {
    if (!tally.today.full)
      app.log(`statistics: ${tally.maxVisitorsPerDay} visitors on ${day}; more are not counted as visitors today`);
    tally.today.full = true;
    return true;
  }
  const addressHash = createHmac('sha256', tally.today.key)
    .update('address\n')
    .update(rateLimitSubject(ip))
    .digest()
    .subarray(0, 16);
  const addressKey = seenKey(addressHash);
  const fromAddress = tally.today.perAddress.get(addressKey) ?? 0;
  if (fromAddress >= tally.maxVisitorsPerAddress) return true;
  tally.today.perAddress.set(addressKey, fromAddress + 1);
  tally.today.seen.add(key);
  counts.visitors++;
  const { asn, name } = app.asn.lookup(ip);
  counts.candidates.push({ hash, addressHash, asn, name });
  const perAsn = counts.asns.get(asn);
  if (perAsn) perAsn.visitors++;
  else counts.asns.set(asn, { name, visitors: 1 });
  return true;
}

function seenKey(hash: Buffer): string {
  return hash.toString('latin1', 0, 16);
}

function pendingDay(tally: ImpressionTally, day: string): PendingDay {
  let counts = tally.pending.get(day);
  if (!counts) {
    counts = { impressions: 0, visitors: 0, asns: new Map(), candidates: [] };
    tally.pending.set(day, counts);
  }
  return counts;
}

function openDay(db: Db, day: string, pending: PendingDay | undefined): OpenDay {
  return db.tx(() => {
    const secret = dailySecret(db, day);
    const stored = db.all<{ hash: Buffer }>('SELECT hash FROM visitor_hashes WHERE day = ?', day);
    const seen = new Set(stored.map((row) => seenKey(row.hash)));
    for (const { hash } of pending?.candidates ?? []) seen.add(seenKey(hash));
    const perAddress = new Map<string, number>();
    for (const row of db.all<{ hash: Buffer; visitors: number }>(
      'SELECT hash, visitors FROM visitor_subjects WHERE day = ?',
      day,
    ))
      perAddress.set(seenKey(row.hash), row.visitors);
    for (const { addressHash } of pending?.candidates ?? [])
      perAddress.set(seenKey(addressHash), (perAddress.get(seenKey(addressHash)) ?? 0) + 1);
    return { day, secret, key: createSecretKey(secret), seen, perAddress };
  });
}

function resumeToday(app: ImpressionDeps): void {
  const day = utcDay(app.clock.now());
  const started = app.db.one<{ secret: Buffer }>('SELECT secret FROM daily_secrets WHERE day = ?', day);
  if (started) app.impressions.today = openDay(app.db, day, undefined);
}

/**
 * Writes the pending counts in one transaction; after a day has ended, deletes its visitor
 * hashes and secret (its counts stay in daily_stats) and daily_asn rows past the window.
 * Throws on a database failure and keeps the counts for the next try.
 */
export function flushImpressions(app: ImpressionDeps): void {
  const tally = app.impressions;
  const today = utcDay(app.clock.now());
  const dueCleanup = tally.sweepsFinishedDays && tally.cleanedFor !== today;
  if (tally.pending.size === 0 && !dueCleanup) return;
  const { db } = app;
  db.tx(() => {
    for (const [day, counts] of tally.pending) writeDay(db, day, counts, tally.maxVisitorsPerAddress);
    if (dueCleanup) sweepFinishedDays(db, today);
  });
  tally.pending.clear();
  tally.cleanedFor = today;
  if (tally.today && tally.today.day < today) tally.today = undefined;
}

/**
 * One day's counts. Visitors are counted by the database, not by this process: a hash another
 * process stored already is not counted again, and the per-address cap holds across processes. The
 * first statement writes, so the transaction holds the write lock before it reads.
 */
function writeDay(db: Db, day: string, counts: PendingDay, maxPerAddress: number): void {
  db.run(
    `INSERT INTO daily_stats (day, impressions, visitors) VALUES (?, ?, 0)
     ON CONFLICT (day) DO UPDATE SET impressions = impressions + excluded.impressions`,
    day,
    counts.impressions,
  );
  let visitors = 0;
  const asns = new Map<number, { name: string; visitors: number }>();
  for (const candidate of counts.candidates) {
    if (!storeVisitor(db, day, candidate, maxPerAddress)) continue;
    visitors++;
    const perAsn = asns.get(candidate.asn);
    if (perAsn) perAsn.visitors++;
    else asns.set(candidate.asn, { name: candidate.name, visitors: 1 });
  }
  db.run('UPDATE daily_stats SET visitors = visitors + ? WHERE day = ?', visitors, day);
  for (const [asn, { name, visitors: count }] of asns) {
    db.run(
      `INSERT INTO daily_asn (day, asn, name, visitors) VALUES (?, ?, ?, ?)
       ON CONFLICT (day, asn) DO UPDATE SET visitors = visitors + excluded.visitors, name = excluded.name`,
      day,
      asn,
      name,
      count,
    );
  }
  db.run("UPDATE counters SET value = value + ? WHERE name = 'impressions'", counts.impressions);
  db.run("UPDATE counters SET value = value + ? WHERE name = 'visitors'", visitors);
}

function storeVisitor(db: Db, day: string, visitor: VisitorCandidate, maxPerAddress: number): boolean {
  const fromAddress =
    db.one<{ visitors: number }>(
      'SELECT visitors FROM visitor_subjects WHERE day = ? AND hash = ?',
      day,
      visitor.addressHash,
    )?.visitors ?? 0;
  if (fromAddress >= maxPerAddress) return false;
  if (db.run('INSERT OR IGNORE INTO visitor_hashes (day, hash) VALUES (?, ?)', day, visitor.hash).changes === 0)
    return false;
  db.run(
    `INSERT INTO visitor_subjects (day, hash, visitors) VALUES (?, ?, 1)
     ON CONFLICT (day, hash) DO UPDATE SET visitors = visitors + 1`,
    day,
    visitor.addressHash,
  );
  return true;
}

function sweepFinishedDays(db: Db, today: string): void {
  db.run('DELETE FROM visitor_hashes WHERE day < ?', today);
  db.run('DELETE FROM visitor_subjects WHERE day < ?', today);
  db.run('DELETE FROM daily_secrets WHERE day < ?', today);
  db.run('DELETE FROM daily_asn WHERE day < ?', windowStart(today));
}

const sweepGraceSeconds = 60;

/**
 * With several processes (lib/jobs/once-jobs.ts): the day sweep once for all, a minute after a day
 * ended, once every worker's flush has counted the day's last visitors.
 */
export function startStatisticsSweep(app: JobDeps): () => void {
  let sweptFor = '';
  const sweep = () => {
    const day = utcDay(app.clock.now() - sweepGraceSeconds);
    if (day === sweptFor) return;
    try {
      app.db.tx(() => sweepFinishedDays(app.db, day));
      sweptFor = day;
    } catch (err) {
      logFailure(app.log, 'statistics: day sweep failed, tried again in a minute', err);
    }
  };
  const first = setImmediate(sweep);
  const timer = setInterval(sweep, 60_000);
  timer.unref();
  return () => {
    clearImmediate(first);
    clearInterval(timer);
  };
}

export function windowStart(today: string): string {
  const t = Date.parse(`${today}T00:00:00Z`) - (statsWindowDays - 1) * 86400_000;
  return new Date(t).toISOString().slice(0, 10);
}

export function startImpressionFlush(app: ImpressionDeps): () => void {
  const flush = () => {
    try {
      flushImpressions(app);
    } catch (err) {
      logFailure(app.log, 'statistics: flush failed, counts kept for the next try', err);
    }
  };
  try {
    resumeToday(app);
  } catch (err) {
    logFailure(app.log, "statistics: cannot load today's visitors", err);
  }
  const timer = setInterval(flush, flushIntervalMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    flush();
  };
}
