import assert from 'node:assert/strict';
import { hangBoundMs } from './hang-bound.ts';

/**
 * Polls `check` every 25 ms until it answers something truthy, for state that changes out of the
 * test's hands (rows a request in flight or a background job writes, a page's own state), and
 * returns that answer; fails naming `what` after `timeoutMs`.
 */
export async function eventually<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = hangBoundMs,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) assert.fail(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
