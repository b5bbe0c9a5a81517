import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { maxMutes } from '../../lib/product.ts';
import { isMuted } from '../../lib/accounts/mutes.ts';
import {
  assertDocumented,
  assertError,
  member,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

function muteRows(board: TestBoard) {
  return board.app.services.db.all<{ uid: number; muted_uid: number }>(
    'SELECT uid, muted_uid FROM mutes ORDER BY uid, muted_uid',
  );
}

describe('mutes', () => {
  const t = useBoard({ members: ['Leserin', 'Laut', 'Leise', 'Dritte'] });
  const mutes = async (client: Client) => {
    const answer = await client.get('/api/user/mutes');
    assertDocumented(answer);
    return answer.body;
  };

  test('mute lists the account; muting again is 200 and changes nothing; any letter case finds the name', async () => {
    const reader = t.members.Leserin;
    assert.deepEqual(await mutes(reader), []);
    const answer = await reader.post('/api/user/mute', { user: 'Laut' });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'ok' });
    assert.equal((await reader.post('/api/user/mute', { user: 'laut' })).status, 200);
    t.board.clock.advance(1);
    assert.equal((await reader.post('/api/user/mute', { user: 'Leise' })).status, 200);
    assert.deepEqual(await mutes(reader), [
      { uid: uidOf(t.board, 'Leise'), username: 'Leise' },
      { uid: uidOf(t.board, 'Laut'), username: 'Laut' },
    ]);
    assert.equal(isMuted(t.board.app.services.db, uidOf(t.board, 'Leserin'), uidOf(t.board, 'Laut')), true);
    assert.equal(
      isMuted(t.board.app.services.db, uidOf(t.board, 'Laut'), uidOf(t.board, 'Leserin')),
      false,
      'a mute has a direction',
    );
    assert.deepEqual(await mutes(t.members.Dritte), [], "one reader's mutes are nobody else's");
  });

  test('unmute removes the mute; unmuting again is 200', async () => {
    const reader = t.members.Leserin;
    await reader.post('/api/user/mute', { user: 'Dritte' });
    for (let i = 0; i < 2; i++) {
      const answer = await reader.post('/api/user/unmute', { user: 'Dritte' });
      assert.equal(answer.status, 200, answer.text);
      assertDocumented(answer);
      assert.deepEqual(answer.body, { status: 'ok' });
    }
    assert.ok(!(await mutes(reader)).some((m: { username: string }) => m.username === 'Dritte'));
  });

  test('oneself answers 400 input.invalid (field user), an unknown account 404 user.not_found, no name 400', async () => {
    const reader = t.members.Leserin;
    for (const path of ['/api/user/mute', '/api/user/unmute']) {
      assertError(await reader.post(path, { user: 'Leserin' }), 400, 'input.invalid', 'user');
      assertError(await reader.post(path, { user: 'LESERIN' }), 400, 'input.invalid', 'user');
      assertError(await reader.post(path, { user: 'Niemand Hier' }), 404, 'user.not_found');
      assertError(await reader.post(path, {}), 400, 'input.invalid', 'user');
    }
    assert.ok(!muteRows(t.board).some((row) => row.uid === row.muted_uid));
  });

  test('every mute endpoint needs a session', async () => {
    const stranger = visitor(t.board);
    assertError(await stranger.post('/api/user/mute', { user: 'Laut' }), 401, 'auth.required');
    assertError(await stranger.post('/api/user/unmute', { user: 'Laut' }), 401, 'auth.required');
    assertError(await stranger.get('/api/user/mutes'), 401, 'auth.required');
  });

  test('nobody learns they were muted: what the muted account and others see is the same as before', async () => {
    const pid = await post(t.members.Leise, 'Leise schreibt');
    const seen = async (client: Client) => [
      (await client.get('/api/user/info')).body,
      (await client.get('/api/u/Leise/info')).body,
      (await client.get(`/api/entry/${pid}/thread`)).body,
      (await client.get('/api/u/Leise/feed/0')).body,
      (await client.get('/api/entry/feed/0')).body,
      (await client.get('/api/user/mutes')).body,
    ];
    await t.members.Dritte.post('/api/user/unmute', { user: 'Leise' });
    const before = [await seen(t.members.Leise), await seen(t.members.Dritte)];
    assert.equal((await t.members.Dritte.post('/api/user/mute', { user: 'Leise' })).status, 200);
    assert.deepEqual(
      [await seen(t.members.Leise), (await seen(t.members.Dritte)).slice(0, 5)],
      [before[0], before[1]!.slice(0, 5)],
    );
  });

  test(`an account holds at most ${maxMutes} mutes; muting a muted one again still answers 200`, async () => {
    const reader = await member(t.board, 'Viel Stumm');
    const db = t.board.app.services.db;
    const readerUid = uidOf(t.board, 'Viel Stumm');
    db.tx(() => {
      for (let i = 0; i < maxMutes; i++) {
        const uid = db.run(
          'INSERT INTO users (username, username_key, pass_hash, created_at) VALUES (?, ?, ?, 0)',
          `Masse ${i}`,
          `masse ${i}`,
          'x',
        ).lastInsertRowid;
        db.run('INSERT INTO mutes (uid, muted_uid, created_at) VALUES (?, ?, 0)', readerUid, uid);
      }
    });
    assertError(await reader.post('/api/user/mute', { user: 'Laut' }), 400, 'input.invalid', 'user');
    assert.equal((await reader.post('/api/user/mute', { user: 'Masse 7' })).status, 200);
    assert.equal((await reader.post('/api/user/unmute', { user: 'Masse 7' })).status, 200);
    assert.equal((await reader.post('/api/user/mute', { user: 'Laut' })).status, 200, 'room again after an unmute');
  });

  test('account deletion removes its mutes both ways', async () => {
    const leaving = await member(t.board, 'Geht Bald');
    const stays = await member(t.board, 'Bleibt Hier');
    await leaving.post('/api/user/mute', { user: 'Bleibt Hier' });
    await stays.post('/api/user/mute', { user: 'Geht Bald' });
    await t.members.Dritte.post('/api/user/mute', { user: 'Geht Bald' });
    const leavingUid = uidOf(t.board, 'Geht Bald');
    assert.equal(muteRows(t.board).filter((row) => row.uid === leavingUid || row.muted_uid === leavingUid).length, 3);

    assert.equal((await leaving.post('/api/user/delete', { pass1: password })).status, 200);
    assert.deepEqual(
      muteRows(t.board).filter((row) => row.uid === leavingUid || row.muted_uid === leavingUid),
      [],
    );
    assert.deepEqual(await mutes(stays), []);
    assert.ok(!(await mutes(t.members.Dritte)).some((m: { uid: number }) => m.uid === leavingUid));
  });
});
