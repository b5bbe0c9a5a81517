import assert from 'node:assert/strict';

/**
 * Polls `check` every 25 ms until it is true, for state that changes out of the test's hands
 * (rows a request in flight writes, a page's own state); fails naming `what` after `timeoutMs`.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
