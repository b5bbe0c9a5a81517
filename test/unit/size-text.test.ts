import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sizeText } from '../../lib/text/size-text.ts';

test('a size reads in the unit that fits it: a nearly full disk is never "0 MiB"', () => {
  assert.equal(sizeText(0), '0 B');
  assert.equal(sizeText(1023), '1023 B');
  assert.equal(sizeText(1024), '1 KiB');
  assert.equal(sizeText(416 * 1024), '416 KiB');
  assert.equal(sizeText(2 ** 20 - 1), '1023 KiB');
  assert.equal(sizeText(2 ** 20), '1.0 MiB');
  assert.equal(sizeText(2.34 * 2 ** 20), '2.3 MiB');
  assert.equal(sizeText(500 * 2 ** 20), '500.0 MiB');
  assert.equal(sizeText(12.5 * 2 ** 30), '12.5 GiB');
});
