import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, test } from 'node:test';

import { makeContext, requireModerator } from '../../lib/http/context.ts';
import {
  assertError,
  imageFixture,
  imageGate,
  limitsOff,
  mediaFiles,
  member,
  modlogRows,
  password,
  post,
  runAdmin,
  sessionInDb,
  slowPost,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { accountArchive } from '../../lib/account-data/export-archive.ts';

/**
 * docs/SECURITY.md "Races with a request in flight" (issue 28): every write of a request checks
 * its session (and a moderator's role) again inside the transaction that writes (ctx.app.db,
 * lib/http/session-bound-db.ts). A gate the test controls holds the request (its image after
 * scaling, or its body before it is sent) while the other side acts through the API or the CLI;
 * then the request goes on: what it answers, what rows and files it left.
 */

const ban = (moderator: Client, username: string, fields: Record<string, string | number>) =>
  moderator.post(`/api/mod/user/${encodeURIComponent(username)}/ban`, fields);

const count = (board: TestBoard, sql: string, ...params: unknown[]) =>
  board.app.services.db.one<{ n: number }>(sql, ...params)!.n;

describe('a write whose image is being scaled', () => {
  const gate = imageGate();
  const t = useBoard({
    env: limitsOff,
    start: { images: gate.images },
    members: ['Anna', 'Bert'],
    moderators: ['Mia'],
  });
  afterEach(() => gate.releaseAll());

  test('a create whose author is banned with purge meanwhile stores nothing: 401 auth.required, no entry row, no file', async () => {
    const { Anna, Mia } = t.members;
    await post(Anna, 'Vor der Sperre geschrieben.');
    const filesBefore = mediaFiles(t.board);
    const held = gate.holdNext('entry');
    const creating = Anna.postMultipart('/api/entry/create', { content: 'Mit Bild, nach der Sperre' }, [
      { name: 'file', filename: 'bild.jpg', type: 'image/jpeg', data: await imageFixture() },
    ]);
    await held.reachedBy(creating); // scaled, not yet saved or written
    const banned = await ban(Mia, 'Anna', { reason: 'Spam', purge: 1 });
    assert.equal(banned.status, 200, banned.text);
    held.release();
    assertError(await creating, 401, 'auth.required');
    assert.equal(
      count(t.board, "SELECT count(*) AS n FROM entries WHERE content = 'Mit Bild, nach der Sperre'"),
      0,
      'no entry row',
    );
    assert.equal(
      count(t.board, 'SELECT count(*) AS n FROM entries WHERE uid = ? AND removed = 0', uidOf(t.board, 'Anna')),
      0,
      'nothing of Anna is live',
    );
    assert.deepEqual(mediaFiles(t.board), filesBefore, 'the saved image is removed again');
  });

  test('an avatar change whose session the owner ended meanwhile keeps the old avatar: 401 auth.required, no new file', async () => {
    const { Bert: owner } = t.members;
    const thief = visitor(t.board);
    assert.equal((await thief.post('/api/auth/login', { user: 'Bert', pass: password })).status, 200);
    const thiefSession = await otherSessionId(owner);
    const filesBefore = mediaFiles(t.board);
    const held = gate.holdNext('avatar');
    const changing = thief.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'a.png', type: 'image/png', data: await imageFixture({ format: 'png' }) },
    ]);
    await held.reachedBy(changing);
    assert.equal((await owner.post(`/api/user/sessions/${thiefSession}/revoke`)).status, 200);
    held.release();
    assertError(await changing, 401, 'auth.required');
    assert.equal((await owner.get('/api/user/info')).body.avatar, '');
    assert.deepEqual(mediaFiles(t.board), filesBefore);
  });

  test('a reply whose parent its author deletes meanwhile stores nothing: 404 entry.not_found, no reply counted, no file', async () => {
    // Accounts of its own: the tests before ban and log out the suite's members.
    const [author, replier] = [await member(t.board, 'Cora'), await member(t.board, 'Dirk')];
    const parent = await post(author, 'Gleich wieder weg.');
    const filesBefore = mediaFiles(t.board);
    const held = gate.holdNext('entry');
    const replying = replier.postMultipart(
      '/api/entry/create',
      { content: 'Eine Antwort mit Bild', reply_to: parent },
      [{ name: 'file', filename: 'bild.jpg', type: 'image/jpeg', data: await imageFixture() }],
    );
    await held.reachedBy(replying); // the parent was read live before the image work
    assert.equal((await author.post(`/api/entry/${parent}/delete`)).status, 200);
    held.release();
    assertError(await replying, 404, 'entry.not_found');
    assert.equal(count(t.board, 'SELECT count(*) AS n FROM entries WHERE reply_to = ?', parent), 0, 'no reply row');
    assert.equal(count(t.board, 'SELECT reply_count AS n FROM entries WHERE pid = ?', parent), 0);
    assert.deepEqual(mediaFiles(t.board), filesBefore, 'the saved image is removed again');
  });
});

/** The public id of the owner's one other session (the thief's). */
async function otherSessionId(owner: Client): Promise<string> {
  const others = (await owner.get('/api/user/sessions')).body.filter((s: { current: number }) => s.current === 0);
  assert.equal(others.length, 1);
  return others[0].id as string;
}

describe('a write whose body comes after its session ended', () => {
  const t = useBoard({ env: limitsOff, members: ['Carl', 'Dora', 'Emil', 'Jan'], moderators: ['Mia', 'Otto'] });

  test('a vote from an account banned with purge meanwhile counts nothing: 401 auth.required', async () => {
    const { Carl, Dora, Mia } = t.members;
    const pid = await post(Carl, 'Abstimmung, bitte.');
    const voting = slowPost(t.board, Dora, `/api/entry/${pid}/vote`, { mode: 'yes' });
    await voting.started; // Dora's session was live when the vote came
    assert.equal((await ban(Mia, 'Dora', { reason: 'Spam', purge: 1 })).status, 200);
    voting.finish();
    assertError(await voting.answer, 401, 'auth.required');
    assert.equal(count(t.board, 'SELECT count(*) AS n FROM votes WHERE pid = ?', pid), 0, 'no vote row');
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/votes`)).body.yes, 0);
  });

  test('an edit from an account banned meanwhile leaves the text as it was: 401 auth.required', async () => {
    const { Emil, Mia } = t.members;
    const pid = await post(Emil, 'Harmloser Text.');
    const editing = slowPost(t.board, Emil, `/api/entry/${pid}/edit`, {
      content: 'Jetzt mit Werbung https://spam.example/',
    });
    await editing.started;
    assert.equal((await ban(Mia, 'Emil', { reason: 'Werbung' })).status, 200);
    editing.finish();
    assertError(await editing.answer, 401, 'auth.required');
    const row = t.board.app.services.db.one<{ content: string; edited_at: number }>(
      'SELECT content, edited_at FROM entries WHERE pid = ?',
      pid,
    )!;
    assert.deepEqual(row, { content: 'Harmloser Text.', edited_at: 0 });
  });

  test('a removal by a moderator demoted meanwhile (board-admin mod remove) changes nothing: 403 mod.required', async () => {
    const { Carl, Otto } = t.members;
    const pid = await post(Carl, 'Soll bleiben.');
    const removing = slowPost(t.board, Otto, `/api/mod/entry/${pid}/remove`, { reason: 'Unsinn' });
    await removing.started; // Otto was a moderator when the removal came
    const demoted = await runAdmin(t.board, ['mod', 'remove', 'Otto']);
    assert.equal(demoted.code, 0, demoted.stderr);
    removing.finish();
    assertError(await removing.answer, 403, 'mod.required');
    assert.equal(t.board.app.services.db.value('SELECT removed FROM entries WHERE pid = ?', pid), 0);
    assert.equal(
      modlogRows(t.board).filter((row) => row.action === 'remove' && row.pid === pid).length,
      0,
      'no log row',
    );
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.content, 'Soll bleiben.');
  });

  test('mute, bump, delete, "mark read" and rename from a session ended while their body comes change nothing: 401 auth.required', async () => {
    const { Jan: owner, Carl } = t.members;
    const janUid = uidOf(t.board, 'Jan');
    const carlsPid = await post(Carl, 'Ein Beitrag zum Stoßen.');
    const ownPid = await post(owner, 'Janns eigener Beitrag.');
    await post(Carl, 'Eine Antwort, also eine Benachrichtigung für Jan.', ownPid);
    const unread = () => count(t.board, 'SELECT count(*) AS n FROM notifications WHERE uid = ? AND read = 0', janUid);
    assert.equal(unread(), 1);
    // Each with a body (an unknown field where the endpoint takes none): an empty POST would not wait
    // for one. The rename last: on code without the re-check it lands, and no later login by name would.
    const writes: { path: string; fields: Record<string, string>; unchanged(): void }[] = [
      {
        path: '/api/user/mute',
        fields: { user: 'Carl' },
        unchanged: () => assert.equal(count(t.board, 'SELECT count(*) AS n FROM mutes WHERE uid = ?', janUid), 0),
      },
      {
        path: `/api/entry/${carlsPid}/bump`,
        fields: { x: '1' },
        unchanged: () => assert.equal(count(t.board, 'SELECT bump_count AS n FROM entries WHERE pid = ?', carlsPid), 0),
      },
      {
        path: `/api/entry/${ownPid}/delete`,
        fields: { x: '1' },
        unchanged: () => assert.equal(count(t.board, 'SELECT deleted AS n FROM entries WHERE pid = ?', ownPid), 0),
      },
      { path: '/api/user/notifications/read', fields: { x: '1' }, unchanged: () => assert.equal(unread(), 1) },
      {
        path: '/api/user/rename',
        fields: { user: 'Dieb' },
        unchanged: () => assert.equal(count(t.board, "SELECT count(*) AS n FROM users WHERE username = 'Jan'"), 1),
      },
    ];
    const answers: string[] = [];
    for (const write of writes) {
      const thief = visitor(t.board);
      assert.equal((await thief.post('/api/auth/login', { user: 'Jan', pass: password })).status, 200);
      const thiefSession = await otherSessionId(owner);
      const slow = slowPost(t.board, thief, write.path, write.fields);
      await slow.started;
      assert.equal((await owner.post(`/api/user/sessions/${thiefSession}/revoke`)).status, 200);
      slow.finish();
      const answer = await slow.answer;
      answers.push(
        `${write.path} ${answer.status} ${answer.status === 401 ? JSON.parse(answer.text).error.code : answer.text}`,
      );
    }
    assert.deepEqual(
      answers,
      writes.map((write) => `${write.path} 401 auth.required`),
    );
    for (const write of writes) write.unchanged();
    assert.equal((await owner.get('/api/user/info')).body.username, 'Jan', "the owner's session stays");
  });
});

describe('the database a handler sees (ctx.app.db)', () => {
  const t = useBoard({ members: ['Kai', 'Lena'], moderators: ['Mia'] });

  /** A request's context as the pipeline makes it, for `cookie`. */
  const contextFor = (cookie: string) => {
    const req = {
      headers: { cookie: `session=${cookie}` },
      socket: { remoteAddress: '127.0.0.1' },
    } as unknown as IncomingMessage;
    const res = { getHeader: () => undefined, setHeader: () => {}, once: () => {} } as unknown as ServerResponse;
    return makeContext(t.board.app.services, req, res, new URL('http://board.invalid/'));
  };

  const lastLogin = (uid: number) => count(t.board, 'SELECT last_login AS n FROM users WHERE uid = ?', uid);

  test('every kind of write re-checks the session inside its transaction: run, tx, a RETURNING read, and each batched write alone', async () => {
    const { db, clock } = t.board.app.services;
    const uid = uidOf(t.board, 'Kai');
    const ended = contextFor(sessionInDb(db, uid, clock.now(), 3600, 'test'));
    const live = contextFor(sessionInDb(db, uidOf(t.board, 'Lena'), clock.now(), 3600, 'test'));
    assert.equal(ended.session()?.uid, uid);
    assert.ok(live.session());
    db.run('DELETE FROM sessions WHERE public_id = ?', ended.session()!.id); // the session ends while the request runs
    const before = lastLogin(uid);
    const write = 'UPDATE users SET last_login = 7 WHERE uid = ?';
    const refused = { status: 401, code: 'auth.required' };
    assert.throws(() => ended.app.db.run(write, uid), refused);
    assert.throws(() => ended.app.db.tx(() => ended.app.db.run(write, uid)), refused);
    assert.throws(() => ended.app.db.one(`${write} RETURNING uid`, uid), refused);
    // Two writes in one batch (one commit): only the one whose session ended is refused.
    const batched = [
      ended.app.db.txBatched(() => ended.app.db.run(write, uid)),
      live.app.db.txBatched(() =>
        live.app.db.run('UPDATE users SET last_login = 8 WHERE uid = ?', uidOf(t.board, 'Lena')),
      ),
    ];
    const [mine, other] = await Promise.allSettled(batched);
    assert.equal(mine?.status, 'rejected');
    assert.equal((mine as PromiseRejectedResult).reason.code, 'auth.required');
    assert.equal(other?.status, 'fulfilled');
    assert.equal(lastLogin(uid), before, 'nothing written for the ended session');
    assert.equal(lastLogin(uidOf(t.board, 'Lena')), 8);
    assert.equal(ended.app.db.one<{ x: number }>('SELECT 1 AS x')?.x, 1, 'reads go on');
    // Without a session there is nothing to re-check (an anonymous report, a login).
    const anonymous = contextFor('');
    assert.equal(anonymous.app.db.run('UPDATE users SET last_login = last_login WHERE uid = ?', uid).changes, 1);
  });

  test('once it acted as a moderator, every write re-checks the role: 403 mod.required after a demotion', async () => {
    const { db, clock } = t.board.app.services;
    const ctx = contextFor(sessionInDb(db, uidOf(t.board, 'Mia'), clock.now(), 3600, 'test'));
    requireModerator(ctx);
    assert.equal(ctx.app.db.run('UPDATE users SET last_login = last_login WHERE uid = ?', 0).changes, 0);
    db.run("UPDATE users SET role = '' WHERE uid = ?", uidOf(t.board, 'Mia'));
    assert.throws(() => ctx.app.db.run('UPDATE users SET last_login = last_login WHERE uid = ?', 0), {
      status: 403,
      code: 'mod.required',
    });
  });

  test('a data export stops at its next page of rows once its session ended: the zip fails instead of going on', async () => {
    const { db, clock, config } = t.board.app.services;
    const uid = uidOf(t.board, 'Lena');
    const ctx = contextFor(sessionInDb(db, uid, clock.now(), 3600, 'test'));
    const session = ctx.session()!;
    // What GET /api/user/export builds once its headers are out (lib/api/export.ts); then the owner ends the session.
    const archive = await accountArchive({
      db: ctx.app.db,
      mediaDir: config.mediaDir,
      uid,
      user: { avatar: '', username: 'Lena', created_at: 0 },
      sessions: [],
      following: [],
      origin: config.origin,
      now: clock.now(),
      recheck: () => ctx.recheckSession(),
    });
    db.run('DELETE FROM sessions WHERE public_id = ?', session.id);
    await assert.rejects(
      async () => {
        for await (const chunk of archive) void chunk;
      },
      { status: 401, code: 'auth.required' },
    );
  });

  test('handlers reach the database only through their context: no module of lib/api or lib/pages opens one or takes the raw connection', () => {
    for (const folder of ['api', 'pages']) {
      const dir = new URL(`../../lib/${folder}/`, import.meta.url);
      for (const name of readdirSync(dir).filter((file) => file.endsWith('.ts'))) {
        const text = readFileSync(new URL(name, dir), 'utf8');
        assert.doesNotMatch(text, /\bopenDb\b|\.raw\b|\bservices\.db\b/, `lib/${folder}/${name}`);
      }
    }
  });
});
