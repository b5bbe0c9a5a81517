import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDb } from '../../lib/db/db.ts';
import { parseIp } from '../../lib/ip/address.ts';
import {
  boardRateRules,
  createLimitStore,
  createRateLimiter,
  waitText,
  type RateRule,
} from '../../lib/limits/rate-limit.ts';

const rules = { login: { limit: 3, windowSeconds: 60 }, report: { limit: 1, windowSeconds: 60 } };
const t0 = 1_700_000_000;

/** A limiter over a fresh in-memory database (the store every limit of the board shares). */
function limiterOf<G extends string>(groups: Record<G, RateRule>, maxRows?: number) {
  return createRateLimiter(createLimitStore(openDb(':memory:'), { maxRows }), groups);
}

test('up to the limit a request passes; the next one waits for the rest of the window', () => {
  const limiter = limiterOf(rules);
  assert.equal(limiter.hit('login', '192.0.2.1', t0), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 5), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 10), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 10), 50);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 59), 1);
});

test('a new window starts once the old one has passed', () => {
  const limiter = limiterOf(rules);
  for (let i = 0; i < 5; i++) limiter.hit('login', '192.0.2.1', t0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 60), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 61), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 62), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 63), 57);
});

test('refused requests count too, so hammering does not shorten the wait', () => {
  const limiter = limiterOf(rules);
  for (let i = 0; i < 100; i++) limiter.hit('report', '192.0.2.1', t0 + (i % 30));
  assert.equal(limiter.hit('report', '192.0.2.1', t0 + 30), 30);
});

test('the wait is never less than one second', () => {
  const limiter = limiterOf({ tight: { limit: 1, windowSeconds: 1 } });
  limiter.hit('tight', 'a', t0);
  assert.equal(limiter.hit('tight', 'a', t0), 1);
});

test('groups and addresses have separate buckets', () => {
  const limiter = limiterOf(rules);
  for (let i = 0; i < 3; i++) limiter.hit('login', '192.0.2.1', t0);
  assert.ok(limiter.hit('login', '192.0.2.1', t0) > 0);
  assert.equal(limiter.hit('login', '192.0.2.2', t0), 0);
  assert.equal(limiter.hit('report', '192.0.2.1', t0), 0);
  assert.ok(limiter.hit('report', '192.0.2.1', t0) > 0);
});

test('an unknown group is a programming error', () => {
  // @ts-expect-error tsc refuses an unknown group; plain JavaScript callers still get the error
  assert.throws(() => limiterOf(rules).hit('nope', 'a', t0), /nope/);
});

test('memory stays bounded when many addresses pass by', () => {
  const limiter = limiterOf(rules, 1000);
  for (let i = 0; i < 50_000; i++) limiter.hit('login', `2001:db8::${i.toString(16)}`, t0 + Math.floor(i / 10_000));
  assert.ok(limiter.size() <= 1000, `size ${limiter.size()}`);
  // The newest addresses keep their counts.
  const last = '2001:db8::c34f';
  limiter.hit('login', last, t0 + 4);
  limiter.hit('login', last, t0 + 4);
  assert.ok(limiter.hit('login', last, t0 + 4) > 0);
});

test('expired buckets are swept', () => {
  const limiter = limiterOf(rules);
  for (let i = 0; i < 500; i++) limiter.hit('login', `198.51.100.${i}`, t0);
  assert.equal(limiter.size(), 500);
  limiter.hit('login', '203.0.113.1', t0 + 120);
  assert.equal(limiter.size(), 1);
});

test("the board's limits: 20 a minute for login, registration and reset, 10 for reports, 30 searches (scaled)", () => {
  assert.deepEqual(boardRateRules, {
    login: { limit: 20, windowSeconds: 60, counts: 'Anmeldeversuche' },
    newuser: { limit: 20, windowSeconds: 60, counts: 'Registrierungen' },
    reset: { limit: 20, windowSeconds: 60, counts: 'Versuche mit Links zum Zurücksetzen' },
    report: { limit: 10, windowSeconds: 60, counts: 'Meldungen' },
    search: { limit: 30, windowSeconds: 60, scaled: true, counts: 'Suchanfragen' },
  });
});

test("a scaled group follows BOARD_LIMITS (0 lifts it); SPEC's groups do not", () => {
  const rules = { login: { limit: 2, windowSeconds: 60 }, search: { limit: 2, windowSeconds: 60, scaled: true } };
  const store = () => createLimitStore(openDb(':memory:'));
  const doubled = createRateLimiter(store(), rules, 2);
  for (let i = 0; i < 4; i++) assert.equal(doubled.hit('search', '192.0.2.1', t0), 0, `search ${i + 1} of 4`);
  assert.ok(doubled.hit('search', '192.0.2.1', t0) > 0);
  assert.equal(doubled.hit('login', '192.0.2.1', t0), 0);
  assert.equal(doubled.hit('login', '192.0.2.1', t0), 0);
  assert.ok(doubled.hit('login', '192.0.2.1', t0) > 0, 'login keeps its 2');
  const off = createRateLimiter(store(), rules, 0);
  for (let i = 0; i < 50; i++) assert.equal(off.hit('search', '192.0.2.1', t0), 0);
  assert.equal(off.size(), 0, 'nothing counted');
  off.hit('login', '192.0.2.1', t0);
  off.hit('login', '192.0.2.1', t0);
  assert.ok(off.hit('login', '192.0.2.1', t0) > 0, "SPEC's limit stays with BOARD_LIMITS=0");
});

test('IPv6 clients share one bucket per /64; IPv4 addresses and other /64s count apart', () => {
  const limiter = limiterOf({ login: { limit: 2, windowSeconds: 60 } });
  assert.equal(limiter.hit('login', '2001:db8:1:2::1', 0), 0);
  assert.equal(limiter.hit('login', '2001:db8:1:2:ffff:ffff:ffff:fffe', 0), 0);
  assert.ok(
    limiter.hit('login', '2001:0db8:0001:0002::77', 0) > 0,
    'a third address of the same /64 is over the limit',
  );
  assert.equal(limiter.hit('login', '2001:db8:1:3::1', 0), 0, 'the next /64 has its own bucket');
  assert.equal(limiter.hit('login', '192.0.2.1', 0), 0);
  assert.equal(limiter.hit('login', '192.0.2.2', 0), 0);
  assert.equal(limiter.hit('login', '192.0.2.2', 0), 0);
  assert.ok(limiter.hit('login', '192.0.2.2', 0) > 0);
});

test('counters live in SQLite: a second store on the same database sees the same counts', () => {
  const db = openDb(':memory:');
  const one = createRateLimiter(createLimitStore(db), rules);
  const two = createRateLimiter(createLimitStore(db), rules);
  assert.equal(one.hit('login', '192.0.2.1', t0), 0);
  assert.equal(two.hit('login', '192.0.2.1', t0), 0);
  assert.equal(one.hit('login', '192.0.2.1', t0), 0);
  assert.ok(
    two.hit('login', '192.0.2.1', t0) > 0,
    'the fourth request of two processes together is over the limit of 3',
  );
});

test('an address window that would cross UTC midnight starts over with the new day', () => {
  const limiter = limiterOf({ daily: { limit: 2, windowSeconds: 86_400 } });
  const evening = Date.parse('2026-03-10T23:59:00Z') / 1000;
  limiter.hit('daily', '192.0.2.1', evening);
  limiter.hit('daily', '192.0.2.1', evening);
  assert.equal(limiter.hit('daily', '192.0.2.1', evening), 60, 'the wait ends at midnight');
  assert.equal(limiter.hit('daily', '192.0.2.1', evening + 60), 0, 'a new day, a new key');
});

test('the table holds no client address, as text or as bytes; its rows go with their day', () => {
  const db = openDb(':memory:');
  const limiter = createRateLimiter(createLimitStore(db), rules);
  const ips = ['198.51.100.77', '8.8.8.8', '2001:db8:77:1::5', '2606:4700:10::77'];
  for (const ip of ips) limiter.hit('login', ip, t0);
  const rows = db.all<Record<string, unknown>>('SELECT * FROM rate_limits');
  assert.equal(rows.length, ips.length);
  for (const row of rows) {
    for (const value of Object.values(row)) {
      const bytes = Buffer.isBuffer(value) ? value : Buffer.from(String(value));
      for (const ip of ips) {
        assert.equal(bytes.indexOf(ip), -1, `${ip} as text`);
        assert.equal(bytes.indexOf(Buffer.from(ip, 'utf16le')), -1, `${ip} as UTF-16`);
        assert.equal(bytes.indexOf(Buffer.from(parseIp(ip)!.bytes)), -1, `${ip} packed`);
      }
    }
  }
  createLimitStore(db).prune(t0 + 86_400);
  assert.deepEqual(db.all('SELECT * FROM rate_limits'), [], 'the next day nothing is left');
});

test('a 429 says how long to wait in seconds, minutes, hours or days, rounded up', () => {
  assert.deepEqual([1, 59, 60, 61, 7199, 7200, 86_401, 2 * 86_400, 6.5 * 86_400].map(waitText), [
    'eine Sekunde',
    '59 Sekunden',
    'eine Minute',
    '2 Minuten',
    '120 Minuten',
    '2 Stunden',
    '25 Stunden',
    '2 Tage',
    '7 Tage',
  ]);
});

test('a peek that met a counter at its limit refuses it from memory until its window ends, the database unread', async () => {
  const db = openDb(':memory:');
  const store = createLimitStore(db);
  const counter = store.named('federation_actor/60', 'http://a.example/users/flut', { limit: 2, windowSeconds: 60 });
  assert.equal(store.hit([counter], t0, false), 0);
  assert.equal(store.hit([counter], t0, false), 0);
  assert.equal(store.peek([counter], t0 + 10), 50);
  await db.close(); // every read fails from here on: a peek that asked the database would let the request pass
  assert.equal(store.peek([counter], t0 + 20), 40);
});
