import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boardRateRules, createRateLimiter } from '../../lib/rate-limit.ts';

const rules = { login: { limit: 3, windowSeconds: 60 }, report: { limit: 1, windowSeconds: 60 } };
const t0 = 1_700_000_000;

test('up to the limit a request passes; the next one waits for the rest of the window', () => {
  const limiter = createRateLimiter(rules);
  assert.equal(limiter.hit('login', '192.0.2.1', t0), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 5), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 10), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 10), 50);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 59), 1);
});

test('a new window starts once the old one has passed', () => {
  const limiter = createRateLimiter(rules);
  for (let i = 0; i < 5; i++) limiter.hit('login', '192.0.2.1', t0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 60), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 61), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 62), 0);
  assert.equal(limiter.hit('login', '192.0.2.1', t0 + 63), 57);
});

test('refused requests count too, so hammering does not shorten the wait', () => {
  const limiter = createRateLimiter(rules);
  for (let i = 0; i < 100; i++) limiter.hit('report', '192.0.2.1', t0 + (i % 30));
  assert.equal(limiter.hit('report', '192.0.2.1', t0 + 30), 30);
});

test('the wait is never less than one second', () => {
  const limiter = createRateLimiter({ tight: { limit: 1, windowSeconds: 1 } });
  limiter.hit('tight', 'a', t0);
  assert.equal(limiter.hit('tight', 'a', t0), 1);
});

test('groups and addresses have separate buckets', () => {
  const limiter = createRateLimiter(rules);
  for (let i = 0; i < 3; i++) limiter.hit('login', '192.0.2.1', t0);
  assert.ok(limiter.hit('login', '192.0.2.1', t0) > 0);
  assert.equal(limiter.hit('login', '192.0.2.2', t0), 0);
  assert.equal(limiter.hit('report', '192.0.2.1', t0), 0);
  assert.ok(limiter.hit('report', '192.0.2.1', t0) > 0);
});

test('an unknown group is a programming error', () => {
  // @ts-expect-error tsc refuses an unknown group; plain JavaScript callers still get the error
  assert.throws(() => createRateLimiter(rules).hit('nope', 'a', t0), /nope/);
});

test('memory stays bounded when many addresses pass by', () => {
  const limiter = createRateLimiter(rules, 1000);
  for (let i = 0; i < 50_000; i++) limiter.hit('login', `2001:db8::${i.toString(16)}`, t0 + Math.floor(i / 10_000));
  assert.ok(limiter.size() <= 1000, `size ${limiter.size()}`);
  // The newest addresses keep their counts.
  const last = '2001:db8::c34f';
  limiter.hit('login', last, t0 + 4);
  limiter.hit('login', last, t0 + 4);
  assert.ok(limiter.hit('login', last, t0 + 4) > 0);
});

test('expired buckets are swept', () => {
  const limiter = createRateLimiter(rules);
  for (let i = 0; i < 500; i++) limiter.hit('login', `198.51.100.${i}`, t0);
  assert.equal(limiter.size(), 500);
  limiter.hit('login', '203.0.113.1', t0 + 120);
  assert.equal(limiter.size(), 1);
});

test("the board's limits: 20 a minute for login, registration and reset, 10 for reports, 3 exports an hour", () => {
  assert.deepEqual(boardRateRules, {
    login: { limit: 20, windowSeconds: 60 },
    newuser: { limit: 20, windowSeconds: 60 },
    reset: { limit: 20, windowSeconds: 60 },
    report: { limit: 10, windowSeconds: 60 },
    export: { limit: 3, windowSeconds: 3600 },
  });
});

test('IPv6 clients share one bucket per /64; IPv4 addresses and other /64s count apart', () => {
  const limiter = createRateLimiter({ login: { limit: 2, windowSeconds: 60 } });
  assert.equal(limiter.hit('login', '2001:db8:1:2::1', 0), 0);
  assert.equal(limiter.hit('login', '2001:db8:1:2:ffff:ffff:ffff:fffe', 0), 0);
  assert.ok(limiter.hit('login', '2001:0db8:0001:0002::77', 0) > 0, 'a third address of the same /64 is over the limit');
  assert.equal(limiter.hit('login', '2001:db8:1:3::1', 0), 0, 'the next /64 has its own bucket');
  assert.equal(limiter.hit('login', '192.0.2.1', 0), 0);
  assert.equal(limiter.hit('login', '192.0.2.2', 0), 0);
  assert.equal(limiter.hit('login', '192.0.2.2', 0), 0);
  assert.ok(limiter.hit('login', '192.0.2.2', 0) > 0);
});
