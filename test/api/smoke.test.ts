import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startBoard, type TestBoard } from '../helpers.ts';

let board: TestBoard;
before(async () => { board = await startBoard(); });
after(() => board.close());

test('a newcomer registers, logs in and sees their own info', async () => {
  const alice = board.client();
  await alice.signUp('Alice');
  const info = await alice.get('/api/user/info');
  assert.equal(info.status, 200);
  assert.equal(info.body.username, 'Alice');
  assert.ok(info.body.last_login > 0);
});
