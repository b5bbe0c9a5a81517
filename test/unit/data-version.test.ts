import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oncePerTurn } from '../../lib/db/data-version.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('the data_version memo asks once per event-loop turn: two reads in one turn ask once, a read in the next turn asks again', async () => {
  let asked = 0;
  let version = 7;
  const read = oncePerTurn(() => {
    asked++;
    return version;
  });
  assert.equal(read(), 7);
  version = 8; // another process commits within the same turn
  assert.equal(read(), 7, 'the second read of the turn gets the first answer');
  assert.equal(asked, 1);
  await nextTurn();
  assert.equal(read(), 8, 'the next turn sees the commit');
  assert.equal(asked, 2);
  await Promise.resolve(); // a microtask is still the same turn
  assert.equal(read(), 8);
  assert.equal(asked, 2);
});
