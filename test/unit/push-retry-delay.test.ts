import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxRetryAfterSeconds, pushRetrySeconds, retryDelaySeconds } from '../../lib/push/queue.ts';
import { retryAfterSeconds } from '../../lib/push/send.ts';

/** lib/push/queue.ts, lib/push/send.ts: when a push is tried again (docs/API.md "Web Push"). */

test('the wait doubles from one try to the next', () => {
  assert.deepEqual(
    [1, 2, 3].map((tries) => retryDelaySeconds(tries, undefined)),
    [pushRetrySeconds, pushRetrySeconds * 2, pushRetrySeconds * 4],
  );
});

test('Retry-After lengthens the wait up to its cap, and never shortens it', () => {
  assert.equal(retryDelaySeconds(1, 300), 300);
  assert.equal(retryDelaySeconds(1, 86_400), maxRetryAfterSeconds);
  assert.equal(retryDelaySeconds(1, 0), pushRetrySeconds, 'a Retry-After of 0 is no burst');
  assert.equal(retryDelaySeconds(2, 5), pushRetrySeconds * 2);
});

test('Retry-After as seconds or as an HTTP date; anything else is none', () => {
  const now = Date.UTC(2026, 10, 27, 18, 0, 0) / 1000;
  assert.equal(retryAfterSeconds('120', now), 120);
  assert.equal(retryAfterSeconds(' 7 ', now), 7);
  assert.equal(retryAfterSeconds('Fri, 27 Nov 2026 18:02:00 GMT', now), 120);
  assert.equal(retryAfterSeconds('Fri, 27 Nov 2026 17:00:00 GMT', now), 0, 'a date gone by: at once');
  assert.equal(retryAfterSeconds(undefined, now), undefined);
  assert.equal(retryAfterSeconds('bald', now), undefined);
  assert.equal(retryAfterSeconds('-5', now), undefined);
});
