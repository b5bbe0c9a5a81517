import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useBoard } from '../helpers.ts';

const t = useBoard();

test('a newcomer registers, logs in and sees their own info', async () => {
  const alice = t.board.client();
  await alice.signUp('Alice');
  const info = await alice.get('/api/user/info');
  assert.equal(info.status, 200);
  assert.equal(info.body.username, 'Alice');
  assert.ok(info.body.last_login > 0);
});
