import type { Db } from '../db/db.ts';
import { utcDay, windowStart, type ImpressionTally } from './impressions.ts';
import { statsWindowDays, topAsnCount } from '../product.ts';

/** docs/API.md "Statistics": numbers from the counters table (kept on write) plus counts not yet flushed. */

export interface StatsSummary {
  users: number;
  entries: number;
}

export interface DailyStats {
  day: string;
  impressions: number;
  visitors: number;
}

export interface AsnVisitors {
  asn: number;
  name: string;
  visitors: number;
}

export interface StatsDetail extends StatsSummary {
  toplevel: number;
  replies: number;
  votes: { yes: number; no: number };
  impressions_total: number;
  visitors_total: number;
  daily: DailyStats[];
  top_asns: AsnVisitors[];
}

function readCounters(db: Db): Map<string, number> {
  const rows = db.all<{ name: string; value: number }>('SELECT name, value FROM counters');
  return new Map(rows.map((r) => [r.name, r.value]));
}

export function readStatsSummary(db: Db): StatsSummary {
  const rows = db.all<{ name: string; value: number }>(
    "SELECT name, value FROM counters WHERE name IN ('users', 'entries')",
  );
  const counters = new Map(rows.map((r) => [r.name, r.value]));
  return { users: counters.get('users') ?? 0, entries: counters.get('entries') ?? 0 };
}

export function readStatsDetail(db: Db, tally: ImpressionTally, now: number): StatsDetail {
  const counters = readCounters(db);
  const count = (name: string) => counters.get(name) ?? 0;
  let pendingImpressions = 0;
  let pendingVisitors = 0;
  for (const day of tally.pending.values()) {
    pendingImpressions += day.impressions;
    pendingVisitors += day.visitors;
  }
  const today = utcDay(now);
  return {
    users: count('users'),
    entries: count('entries'),
    toplevel: count('toplevel'),
    replies: count('replies'),
    votes: { yes: count('votes_yes'), no: count('votes_no') },
    impressions_total: count('impressions') + pendingImpressions,
    visitors_total: count('visitors') + pendingVisitors,
    daily: readDaily(db, tally, today),
    top_asns: readTopAsns(db, tally, windowStart(today)),
  };
}

function readDaily(db: Db, tally: ImpressionTally, today: string): DailyStats[] {
  const first = windowStart(today);
  const stored = db.all<DailyStats>(
    'SELECT day, impressions, visitors FROM daily_stats WHERE day >= ? AND day <= ?',
    first,
    today,
  );
  const byDay = new Map(stored.map((row) => [row.day, row]));
  const start = Date.parse(`${first}T00:00:00Z`);
  return Array.from({ length: statsWindowDays }, (_, i) => {
    const day = new Date(start + i * 86400_000).toISOString().slice(0, 10);
    const row = byDay.get(day);
    const pending = tally.pending.get(day);
    return {
      day,
      impressions: (row?.impressions ?? 0) + (pending?.impressions ?? 0),
      visitors: (row?.visitors ?? 0) + (pending?.visitors ?? 0),
    };
  });
}

function readTopAsns(db: Db, tally: ImpressionTally, first: string): AsnVisitors[] {
  // With a single max() aggregate, SQLite takes the bare column `name` from the newest day's row.
  const rows = db.all<AsnVisitors & { newest: string }>(
    'SELECT asn, name, max(day) AS newest, sum(visitors) AS visitors FROM daily_asn WHERE day >= ? GROUP BY asn',
    first,
  );
  const byAsn = new Map(rows.map((r) => [r.asn, { asn: r.asn, name: r.name, visitors: r.visitors }]));
  for (const [day, counts] of tally.pending) {
    if (day < first) continue;
    for (const [asn, { name, visitors }] of counts.asns) {
      const known = byAsn.get(asn);
      if (!known) byAsn.set(asn, { asn, name, visitors });
      else Object.assign(known, { name, visitors: known.visitors + visitors });
    }
  }
  return [...byAsn.values()]
    .map((a) => (a.asn === 0 ? { ...a, name: 'unknown' } : a))
    .sort((a, b) => b.visitors - a.visitors || a.asn - b.asn)
    .slice(0, topAsnCount);
}
