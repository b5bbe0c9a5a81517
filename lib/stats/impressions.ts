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
 * Page impressions and daily visitors, counted in memory and written in one small transaction
 * every few seconds (and on shutdown). A visitor is an HMAC-SHA-256 of (IP, User-Agent) under a
 * random secret that lives only for its UTC day; the address itself is never kept. An address
 * (an IPv6 client: its /64) brings at most 3 visitors a day, counted under another HMAC of it.
 * Only the day's counts survive it: the hashes and the secret are deleted once the day is over.
 */

/** User agents that look like crawlers or link-preview fetchers count no impression. */
const botAgent = /bot|crawl|spider|slurp|preview/i;
export const flushIntervalMs = 5000;

/** Counts of one day not yet in the database. */
export interface PendingDay {
  impressions: number;
  /** Visitors this process counted; the flush counts only those no other process counted first. */
  visitors: number;
  asns: Map<number, { name: string; visitors: number }>;
  candidates: VisitorCandidate[];
}

/** A new visitor as this process saw it: their hash, their address's hash and ASN. */
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
   * every call, which cost a served page about five times the hash itself (bench/results.md).
   */
  key: KeyObject;
  /** Today's visitors (the first 16 bytes of each hash), from the database at start-up plus the new ones. */
  seen: Set<string>;
  /** Visitors counted today per address key, from the database at start-up plus the new ones. */
  perAddress: Map<string, number>;
  /** The cap was reached and logged. */
  full?: boolean;
}

/** What counting and flushing use: the job's database, time and log, the tally and the ASN lookup. */
export interface ImpressionDeps extends JobDeps {
  impressions: ImpressionTally;
  asn: Pick<AsnDb, 'lookup'>;
}

/** The in-memory part of the statistics, one per app (Services.impressions). */
/** How a process counts visitors: its caps, and whether its flush sweeps finished days. */
export interface TallySettings {
  /** BOARD_LIMITS: scales the visitors one address may bring; 0 lifts that cap. */
  limitsFactor: number;
  /**
   * Whether this process's flush deletes finished days' hashes and secrets. Off in cluster workers:
   * the job runner does it once for all (startStatisticsSweep), not every worker.
   */
  sweepsFinishedDays: boolean;
  /** Tests lower the day's cap (lib/product.ts maxVisitorsPerDay) to reach it. */
  maxVisitorsPerDay?: number;
}

export class ImpressionTally {
  /** Visitors counted per day at most (lib/product.ts maxVisitorsPerDay says why). */
  readonly maxVisitorsPerDay: number;
  /** Visitors one address may bring per day (lib/product.ts maxVisitorsPerAddress), scaled; Infinity: no cap. */
  readonly maxVisitorsPerAddress: number;
  readonly sweepsFinishedDays: boolean;
  readonly pending = new Map<string, PendingDay>();
  today: OpenDay | undefined;
  /** The day the last clean-up of finished days ran for. */
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

/**
 * Counts one impression of a page view (lib/pages/impression.ts), and the visitor once per day; true
 * when the impression counted. Costs an HMAC and a few map updates; never throws.
 */
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

/** 128 bits of the hash as a 16-character string: plenty to tell a day's visitors apart, half the memory. */
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

/** The day's secret (made and stored on its first visit) and the visitors already counted. */
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

/** After a restart, loads today's secret and visitors (if the day has begun) before the first page asks. */
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
  if (tally.today && tally.today.day < today) tally.today = undefined; // yesterday's secret leaves memory too
}

/**
 * One day's counts. Visitors are counted by the database, not by this process: a hash another
 * process (BOARD_WORKERS) already stored is not counted again, and the per-address cap is checked
 * against what every process stored. The first statement writes, so the transaction holds the
 * write lock before it reads.
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

/** Stores a visitor unless the day has them already or their address brought its cap; true when counted. */
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

/** Deletes finished days' visitor hashes, address counts and secrets, and ASN rows past the window. */
function sweepFinishedDays(db: Db, today: string): void {
  db.run('DELETE FROM visitor_hashes WHERE day < ?', today);
  db.run('DELETE FROM visitor_subjects WHERE day < ?', today);
  db.run('DELETE FROM daily_secrets WHERE day < ?', today);
  db.run('DELETE FROM daily_asn WHERE day < ?', windowStart(today));
}

/** How long after midnight (UTC) the cluster's sweep waits: every worker has flushed the day's last visitors by then. */
const sweepGraceSeconds = 60;

/**
 * With several processes (lib/jobs/once-jobs.ts): the day sweep once for all, checked every minute.
 * A finished day is swept a minute after it ended, once every worker's 5-second flush has
 * counted its last visitors against the day's hashes.
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

/** The first day of the statistics window that ends with `today` (statsWindowDays, today included); daily_asn rows are kept that long. */
export function windowStart(today: string): string {
  const t = Date.parse(`${today}T00:00:00Z`) - (statsWindowDays - 1) * 86400_000;
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * Loads today's visitors after a restart and flushes every few seconds; returns the stop
 * function, which flushes a last time (call it before the database closes).
 */
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
