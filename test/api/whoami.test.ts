import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumented, assertError, moderator, password, useBoard, visitor } from '../helpers.ts';

describe('GET /api/auth/whoami', () => {
  const t = useBoard({ members: ['Wer Bin Ich'] });

  test('without a session: 200 {uid: 0}, also with an unknown, malformed or expired cookie', async () => {
    const stranger = visitor(t.board);
    for (const cookie of ['', 'A'.repeat(43), 'not-a-token']) {
      stranger.cookie = cookie;
      const answer = await stranger.get('/api/auth/whoami');
      assert.equal(answer.status, 200, answer.text);
      assertDocumented(answer);
      assert.deepEqual(answer.body, { uid: 0 });
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    }
    const brief = visitor(t.board);
    assert.equal(
      (await brief.post('/api/auth/login', { user: 'Wer Bin Ich', pass: password, timeout: 60 })).status,
      200,
    );
    t.board.clock.advance(61);
    assert.deepEqual((await brief.get('/api/auth/whoami')).body, { uid: 0 });
  });

  test('a session that cannot be looked up answers 500 internal, never {uid: 0}', async () => {
    t.board.app.services.db.setFault(() => new Error('disk I/O error'));
    try {
      assertError(await t.members['Wer Bin Ich'].get('/api/auth/whoami'), 500, 'internal', { exact: true });
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
  });

  test('with a session: exactly what GET /api/user/info answers', async () => {
    const me = t.members['Wer Bin Ich'];
    const info = await me.get('/api/user/info');
    const whoami = await me.get('/api/auth/whoami');
    assert.equal(whoami.status, 200);
    assertDocumented(whoami);
    assert.deepEqual(whoami.body, info.body);
    assert.ok(whoami.body.uid > 0);
  });

  test("a moderator's answer carries the role, as user info does", async () => {
    const mod = await moderator(t.board, 'Moderiert');
    const whoami = await mod.get('/api/auth/whoami');
    assert.equal(whoami.body.role, 'moderator');
    assert.deepEqual(whoami.body, (await mod.get('/api/user/info')).body);
  });

  test('after logout: {uid: 0}, while user info answers 401', async () => {
    const client = visitor(t.board);
    await client.post('/api/auth/login', { user: 'Wer Bin Ich', pass: password });
    await client.post('/api/auth/logout');
    assert.deepEqual((await client.get('/api/auth/whoami')).body, { uid: 0 });
    assertError(await client.get('/api/user/info'), 401, 'auth.required');
  });
});
