import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../lib/errors.ts';

/**
 * lib/errors.ts: an ApiError is an expected answer (a refusal of a flood among them), never logged,
 * so it captures no stack; other errors keep theirs, which the log needs.
 */

test('an ApiError captures no stack frames; a plain Error made after it still does', () => {
  const refusal = new ApiError(429, 'rate.limited');
  assert.doesNotMatch(refusal.stack ?? '', /\n\s+at /, refusal.stack);
  assert.equal(refusal.message, 'rate.limited');
  assert.match(new Error('disk I/O error').stack ?? '', /\n\s+at /, 'the stack trace limit is restored');
});
