import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  day,
  passHash,
  password,
  passwordGate,
  post,
  resetToken,
  sessionCount,
  slowPost,
  uidOf,
  useBoard,
  visitor,
  type Answer,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/SECURITY.md "Races with a request in flight" (issue 28): a login, a reset or a password
 * change waits for its hash outside any transaction; a ban, a password change, a reset or a
 * session revoke may commit meanwhile. The gate holds the request after its password work, the
 * other side acts through the API, then the request goes on: what it answers and what it stored.
 */

const newPassword = 'ein ganz neues Passwort';

const ban = (moderator: Client, username: string, fields: Record<string, string | number> = { reason: 'Spam' }) =>
  moderator.post(`/api/mod/user/${encodeURIComponent(username)}/ban`, fields);

/** What a banned account's login answers (docs/API.md "POST /api/auth/login"): 403 auth.banned with banned_until, no cookie. */
function assertBannedAnswer(answer: Answer, until: number): void {
  assertError(answer, 403, 'auth.banned');
  assert.equal(answer.body.banned_until, until);
  assert.equal(answer.headers.get('set-cookie'), null, 'no session cookie');
}

/** A cookie that is no session: 401 auth.required on authed endpoints, {uid: 0} from whoami, public answers as for anyone. */
async function assertNoSession(board: TestBoard, client: Client, pid: number): Promise<void> {
  for (const path of [
    '/api/user/info',
    '/api/auth/sessioninfo',
    '/api/user/sessions',
    '/api/user/notifications/unread',
  ]) {
    assertError(await client.get(path), 401, 'auth.required', { note: path });
  }
  assertError(await client.post('/api/entry/create', { content: 'Bin ich noch da?' }), 401, 'auth.required');
  assertError(await client.post('/api/user/feed-token'), 401, 'auth.required');
  assert.deepEqual((await client.get('/api/auth/whoami')).body, { uid: 0 });
  // The cached reads (the fast path included) hold nothing of a session: the same bytes as for a visitor.
  for (const path of ['/api/entry/feed/0', `/api/entry/${pid}/thread`]) {
    const [mine, anyone] = [await client.get(path), await visitor(board).get(path)];
    assert.equal(mine.status, 200, path);
    assert.equal(mine.text, anyone.text, path);
  }
}

describe('a login in flight', () => {
  const gate = passwordGate();
  const t = useBoard({
    start: { passwords: gate.passwords },
    users: ['Dora', 'Emil'],
    members: ['Anna', 'Carl'],
    moderators: ['Mia'],
  });
  afterEach(() => gate.releaseAll());

  test('a ban that commits while the login checks the password wins: 403 auth.banned, no session row, the older session is none', async () => {
    const { Anna, Mia } = t.members;
    const pid = await post(Anna, 'Vor der Sperre geschrieben.');
    const held = gate.holdNext('verify');
    const loggingIn = visitor(t.board).post('/api/auth/login', { user: 'Anna', pass: password });
    await held.reachedBy(loggingIn); // the password is right; the login has not written yet
    const banned = await ban(Mia, 'Anna');
    assert.equal(banned.status, 200, banned.text);
    held.release();
    const login = await loggingIn;
    assertBannedAnswer(login, -1);
    assert.match(login.body.error.message, /dauerhaft gesperrt/);
    assertDocumented(login);
    assert.equal(sessionCount(t.board, 'Anna'), 0, 'no session row of the banned account');
    await assertNoSession(t.board, Anna, pid);
  });

  test('a session row beside a ban in force is no session anywhere; once a ban for days has ended it counts again', async () => {
    const { Carl } = t.members;
    const pid = await post(Carl, 'Ein Beitrag von Carl.');
    // What the review found in the database: banned_until = -1 beside live sessions. However a row
    // got there (a login racing a ban on an older version), the lookup must not honour it.
    const { db } = t.board.app.services;
    db.run('UPDATE users SET banned_until = -1 WHERE uid = ?', uidOf(t.board, 'Carl'));
    assert.equal(sessionCount(t.board, 'Carl'), 1);
    await assertNoSession(t.board, Carl, pid);
    const again = await Carl.post('/api/auth/login', { user: 'Carl', pass: password });
    assertBannedAnswer(again, -1); // not "already_logged_in": the cookie is no session

    const until = t.board.clock.now() + day;
    db.run('UPDATE users SET banned_until = ? WHERE uid = ?', until, uidOf(t.board, 'Carl'));
    assertError(await Carl.get('/api/user/info'), 401, 'auth.required');
    t.board.clock.advance(day);
    const info = await Carl.get('/api/user/info');
    assert.equal(info.status, 200, 'an expired ban is no ban (docs/API.md "POST /api/mod/user/{username}/ban")');
    assert.equal(info.body.username, 'Carl');
  });

  test('a password change that commits while the login checks the old password wins: 401 auth.bad_credentials, no new session', async () => {
    const owner = visitor(t.board);
    assert.equal((await owner.post('/api/auth/login', { user: 'Dora', pass: password })).status, 200);
    const oldHash = passHash(t.board, 'Dora');
    const held = gate.holdNext('verify');
    const thief = visitor(t.board);
    const loggingIn = thief.post('/api/auth/login', { user: 'Dora', pass: password });
    await held.reachedBy(loggingIn);
    const changed = await owner.post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword });
    assert.equal(changed.status, 200, changed.text);
    held.release();
    const login = await loggingIn;
    assertError(login, 401, 'auth.bad_credentials');
    assert.equal(login.headers.get('set-cookie'), null);
    assert.notEqual(passHash(t.board, 'Dora'), oldHash);
    assert.equal(sessionCount(t.board, 'Dora'), 1, "only the owner's session");
    assert.equal((await owner.get('/api/user/info')).status, 200);
    assertError(
      await visitor(t.board).post('/api/auth/login', { user: 'Dora', pass: password }),
      401,
      'auth.bad_credentials',
    );
    assert.equal((await visitor(t.board).post('/api/auth/login', { user: 'Dora', pass: newPassword })).status, 200);
  });

  test("a reset that commits while the login checks the old password wins: 401 auth.bad_credentials, only the reset's session", async () => {
    const token = await resetToken(t.board, 'Emil');
    const held = gate.holdNext('verify');
    const loggingIn = visitor(t.board).post('/api/auth/login', { user: 'Emil', pass: password });
    await held.reachedBy(loggingIn);
    const owner = visitor(t.board);
    const reset = await owner.post('/api/auth/reset', { token, pass1: newPassword, pass2: newPassword });
    assert.equal(reset.status, 200, reset.text);
    held.release();
    assertError(await loggingIn, 401, 'auth.bad_credentials');
    assert.equal(sessionCount(t.board, 'Emil'), 1, 'only the session the reset made');
    assert.equal((await owner.get('/api/user/info')).body.username, 'Emil');
  });

  test('a login that completes after "end other sessions" with a password that is still right stands', async () => {
    // docs/SECURITY.md: ending sessions is no lockout; a password change is.
    const { Carl } = t.members;
    const held = gate.holdNext('verify');
    const other = visitor(t.board);
    const loggingIn = other.post('/api/auth/login', { user: 'Carl', pass: password });
    await held.reachedBy(loggingIn);
    const ended = await Carl.post('/api/user/sessions/revoke-others');
    assert.equal(ended.status, 200, ended.text);
    held.release();
    assert.equal((await loggingIn).status, 200);
    assert.equal((await other.get('/api/user/info')).body.username, 'Carl');
    assert.equal(sessionCount(t.board, 'Carl'), 2);
  });
});

describe('a reset or a password change in flight', () => {
  const gate = passwordGate();
  const t = useBoard({
    start: { passwords: gate.passwords },
    users: ['Fritz'],
    members: ['Gerda', 'Hugo', 'Ida', 'Jan'],
    moderators: ['Mia'],
  });
  afterEach(() => gate.releaseAll());

  test('a ban that commits while the reset hashes the new password wins: 403 auth.banned, nothing changed, the link still unused', async () => {
    const token = await resetToken(t.board, 'Fritz');
    const oldHash = passHash(t.board, 'Fritz');
    const held = gate.holdNext('hash');
    const resetting = visitor(t.board).post('/api/auth/reset', { token, pass1: newPassword, pass2: newPassword });
    await held.reachedBy(resetting);
    const banned = await ban(t.members.Mia, 'Fritz', { reason: 'Spam', days: 1 });
    assert.equal(banned.status, 200, banned.text);
    held.release();
    assertBannedAnswer(await resetting, banned.body.banned_until);
    assert.equal(sessionCount(t.board, 'Fritz'), 0, 'no session row of the banned account');
    assert.equal(passHash(t.board, 'Fritz'), oldHash, 'the password is unchanged');
    // The link stays unused, as for a reset refused before its hash: it works once the ban is over.
    t.board.clock.advance(day);
    const later = await visitor(t.board).post('/api/auth/reset', { token, pass1: newPassword, pass2: newPassword });
    assert.equal(later.status, 200, later.text);
  });

  test('a password change from a session ended while it hashes changes nothing: 401 auth.required', async () => {
    const { Gerda: owner } = t.members;
    const thief = visitor(t.board);
    assert.equal((await thief.post('/api/auth/login', { user: 'Gerda', pass: password })).status, 200);
    const thiefSession = (await owner.get('/api/user/sessions')).body.find((s: { current: number }) => s.current === 0)
      .id as string;
    const oldHash = passHash(t.board, 'Gerda');
    const held = gate.holdNext('hash');
    const changing = thief.post('/api/user/password', {
      pass: password,
      pass1: 'das Passwort des Diebes',
      pass2: 'das Passwort des Diebes',
    });
    await held.reachedBy(changing); // the current password was right; the new hash is made
    const revoked = await owner.post(`/api/user/sessions/${thiefSession}/revoke`);
    assert.equal(revoked.status, 200, revoked.text);
    held.release();
    assertError(await changing, 401, 'auth.required');
    assert.equal(passHash(t.board, 'Gerda'), oldHash, 'the password is unchanged');
    assert.equal(sessionCount(t.board, 'Gerda'), 1, "the owner's session stays");
    assert.equal((await owner.get('/api/user/info')).status, 200);
  });

  test('a password change in flight with a current password that another change replaced meanwhile is refused: 403 auth.bad_password', async () => {
    const { Hugo: owner } = t.members;
    // A stolen cookie: the thief's requests come from the owner's own session, which a password change keeps.
    const thief = visitor(t.board);
    thief.cookie = owner.cookie;
    const held = gate.holdNext('hash');
    const changing = thief.post('/api/user/password', {
      pass: password,
      pass1: 'das Passwort des Diebes',
      pass2: 'das Passwort des Diebes',
    });
    await held.reachedBy(changing);
    const changed = await owner.post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword });
    assert.equal(changed.status, 200, changed.text);
    const ownerHash = passHash(t.board, 'Hugo');
    held.release();
    assertError(await changing, 403, 'auth.bad_password', 'pass');
    assert.equal(passHash(t.board, 'Hugo'), ownerHash, "the owner's new password stands");
    assert.equal((await visitor(t.board).post('/api/auth/login', { user: 'Hugo', pass: newPassword })).status, 200);
  });
  test('an account deletion in flight whose current password a change replaced meanwhile deletes nothing: 403 auth.bad_password', async () => {
    const { Ida: owner } = t.members;
    const thief = visitor(t.board);
    thief.cookie = owner.cookie; // a stolen cookie, which the owner's password change keeps
    const held = gate.holdNext('verify');
    const deleting = thief.post('/api/user/delete', { pass1: password });
    await held.reachedBy(deleting); // the old password was right; nothing is deleted yet
    const changed = await owner.post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword });
    assert.equal(changed.status, 200, changed.text);
    held.release();
    assertError(await deleting, 403, 'auth.bad_password', 'pass1');
    assert.equal((await owner.get('/api/user/info')).body.username, 'Ida', 'the account is still there');
    assert.equal(
      t.board.app.services.db.one('SELECT 1 AS x FROM pending_deletions WHERE uid = ?', uidOf(t.board, 'Ida')),
      undefined,
    );
  });

  test('"end other sessions" and "end this session" from a session ended while their body comes end nothing: 401 auth.required', async () => {
    const { Jan: owner } = t.members;
    const revokes = [
      () => '/api/user/sessions/revoke-others',
      (ownerSession: string) => `/api/user/sessions/${ownerSession}/revoke`,
    ];
    for (const pathOf of revokes) {
      const ownerSession = (await owner.get('/api/user/sessions')).body.find(
        (s: { current: number }) => s.current === 1,
      ).id as string;
      const thief = visitor(t.board);
      assert.equal((await thief.post('/api/auth/login', { user: 'Jan', pass: password })).status, 200);
      const thiefSession = (await owner.get('/api/user/sessions')).body.find(
        (s: { current: number }) => s.current === 0,
      ).id as string;
      const slow = slowPost(t.board, thief, pathOf(ownerSession));
      await slow.started; // the thief's session was live when the request came
      assert.equal((await owner.post(`/api/user/sessions/${thiefSession}/revoke`)).status, 200);
      slow.finish();
      const answer = await slow.answer;
      assert.equal(answer.status, 401, answer.text);
      assert.equal(JSON.parse(answer.text).error.code, 'auth.required');
      assert.equal((await owner.get('/api/user/info')).status, 200, "the owner's session stays");
      assert.equal(sessionCount(t.board, 'Jan'), 1);
    }
  });
});
