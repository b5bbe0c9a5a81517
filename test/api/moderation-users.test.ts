import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  day,
  entryRow,
  imageFixture,
  limitsOff,
  mediaFiles,
  member,
  modlogRows,
  password,
  post,
  register,
  resetToken,
  sessionCount,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/** docs/API.md "Moderation": bans, avatars and the role, and what a ban does to logins, resets and sessions. */

const ban = (
  client: Client,
  username: string,
  fields: Record<string, string | number | undefined> = { reason: 'Spam' },
) => client.post(`/api/mod/user/${encodeURIComponent(username)}/ban`, fields);
const unban = (client: Client, username: string) => client.post(`/api/mod/user/${encodeURIComponent(username)}/unban`);

async function login(board: TestBoard, user: string, pass = password) {
  return visitor(board).post('/api/auth/login', { user, pass });
}

describe('banning an account', () => {
  const t = useBoard({ members: ['Anna', 'Bert', 'Carl'], moderators: ['Mia', 'Max'] });

  test('a permanent ban answers {username, banned_until: -1}, ends every session at once and is logged', async () => {
    const second = await login(t.board, 'Anna');
    assert.equal(second.status, 200);
    assert.equal(sessionCount(t.board, 'Anna'), 2);
    const answer = await ban(t.members.Mia, 'anna', { reason: 'Beleidigungen' });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Anna', banned_until: -1 });
    assert.equal(sessionCount(t.board, 'Anna'), 0);
    assertError(await t.members.Anna.post('/api/entry/create', { content: 'noch da?' }), 401, 'auth.required');
    assertError(await t.members.Anna.get('/api/user/info'), 401, 'auth.required');
    const [row] = modlogRows(t.board);
    assert.deepEqual(
      [row!.action, row!.uid, row!.reason, row!.until, row!.moderator_uid],
      ['ban', uidOf(t.board, 'Anna'), 'Beleidigungen', -1, uidOf(t.board, 'Mia')],
    );
  });

  test('while banned: the right password answers 403 auth.banned ("dauerhaft"), a wrong one stays 401', async () => {
    const banned = await login(t.board, 'Anna');
    assertError(banned, 403, 'auth.banned', { exact: false });
    assert.match(banned.body.error.message, /dauerhaft gesperrt/);
    assert.equal(banned.body.banned_until, -1);
    assert.equal(banned.headers.get('set-cookie'), null, 'no session');
    assertError(await login(t.board, 'Anna', 'wrong password!'), 401, 'auth.bad_credentials');
  });

  test('public user info gains banned_until; the name stays taken', async () => {
    const answer = await visitor(t.board).get('/api/u/Anna/info');
    assertDocumented(answer);
    const info = answer.body;
    assert.equal(info.banned_until, -1);
    assert.equal('role' in info, false);
    assertError(
      await visitor(t.board).post('/api/auth/newuser', { user: 'ANNA', pass1: password, pass2: password }),
      409,
      'user.name_taken',
    );
    assert.equal(
      'banned_until' in (await visitor(t.board).get('/api/u/Bert/info')).body,
      false,
      'absent when not banned',
    );
  });

  test('a reset link of a banned account answers 403 auth.banned at check and reset and stays unused', async () => {
    const token = await resetToken(t.board, 'Anna');
    assertError(await visitor(t.board).post('/api/auth/reset/check', { token }), 403, 'auth.banned');
    assertError(
      await visitor(t.board).post('/api/auth/reset', { token, pass1: 'kurz', pass2: 'anders' }),
      403,
      'auth.banned',
      { note: 'checked before the passwords' },
    );
    assertError(
      await visitor(t.board).post('/api/auth/reset', {
        token,
        pass1: 'ein neues Passwort',
        pass2: 'ein neues Passwort',
      }),
      403,
      'auth.banned',
    );
    assert.equal(sessionCount(t.board, 'Anna'), 0);

    assert.equal((await unban(t.members.Mia, 'Anna')).status, 200);
    const reset = await visitor(t.board).post('/api/auth/reset', {
      token,
      pass1: 'ein neues Passwort',
      pass2: 'ein neues Passwort',
    });
    assert.equal(reset.status, 200, `the link was not used up: ${reset.text}`);
  });

  test('unban answers {username, banned_until: 0}; unban of an account that is not banned: 409 mod.not_banned', async () => {
    assertError(await unban(t.members.Mia, 'Anna'), 409, 'mod.not_banned');
    assert.equal((await ban(t.members.Mia, 'Anna')).status, 200);
    const answer = await unban(t.members.Max, 'Anna');
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Anna', banned_until: 0 });
    assert.equal((await login(t.board, 'Anna', 'ein neues Passwort')).status, 200, 'may log in again');
    assert.equal('banned_until' in (await visitor(t.board).get('/api/u/Anna/info')).body, false);
    assert.equal(modlogRows(t.board)[0]!.action, 'unban');
  });

  test('a ban for days ends by itself: the login works again, banned_until disappears, unban answers 409', async () => {
    const answer = await ban(t.members.Mia, 'Bert', { reason: 'Pause', days: 2 });
    const until = t.board.clock.now() + 2 * day;
    assert.deepEqual(answer.body, { username: 'Bert', banned_until: until });
    const refused = await login(t.board, 'Bert');
    assertError(refused, 403, 'auth.banned');
    assert.match(refused.body.error.message, /gesperrt bis \d+\. \p{L}+ \d{4}/u, refused.body.error.message);
    assert.equal(refused.body.banned_until, until);
    assert.equal((await visitor(t.board).get('/api/u/Bert/info')).body.banned_until, until);

    t.board.clock.advance(2 * day);
    assert.equal((await login(t.board, 'Bert')).status, 200);
    assert.equal('banned_until' in (await visitor(t.board).get('/api/u/Bert/info')).body, false);
    assertError(await unban(t.members.Mia, 'Bert'), 409, 'mod.not_banned');
  });

  test('a second ban of a banned account answers 200 with the new end', async () => {
    assert.equal(
      (await ban(t.members.Mia, 'Carl', { reason: 'erst', days: 1 })).body.banned_until,
      t.board.clock.now() + day,
    );
    const again = await ban(t.members.Max, 'Carl', { reason: 'dann länger', days: 30 });
    assert.deepEqual(again.body, { username: 'Carl', banned_until: t.board.clock.now() + 30 * day });
    assert.deepEqual(
      modlogRows(t.board)
        .slice(0, 2)
        .map((r) => [r.action, r.reason]),
      [
        ['ban', 'dann länger'],
        ['ban', 'erst'],
      ],
    );
  });

  test('a moderator cannot ban a moderator through the API: 403 mod.target_moderator; unknown users 404', async () => {
    assertError(await ban(t.members.Mia, 'Max'), 403, 'mod.target_moderator');
    assertError(await ban(t.members.Mia, 'Mia'), 403, 'mod.target_moderator', { note: 'nor themselves' });
    assertError(await ban(t.members.Mia, 'Niemand'), 404, 'user.not_found');
    assertError(await unban(t.members.Mia, 'Niemand'), 404, 'user.not_found');
    assert.equal(sessionCount(t.board, 'Max'), 1);
  });
});

describe('a ban with purge, and reports', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Spammer'], moderators: ['Mia'] });

  test('purge removes every live entry of the account with one log row each, and closes their reports', async () => {
    const top = await post(t.members.Spammer, 'Kauft Uhren');
    const reply = await post(t.members.Spammer, 'Uhren!', await post(t.members.Anna, 'Ein Thema'));
    const deleted = await post(t.members.Spammer, 'schon gelöscht');
    assert.equal((await t.members.Spammer.post(`/api/entry/${deleted}/delete`)).status, 200);
    await visitor(t.board).post(`/api/entry/${top}/report`, { reason: 'Spam' });
    const stats = (await t.board.client().get('/api/stats')).body;

    const answer = await ban(t.members.Mia, 'Spammer', { reason: 'Werbung', purge: 1 });
    assert.deepEqual(answer.body, { username: 'Spammer', banned_until: -1 });
    for (const pid of [top, reply])
      assert.deepEqual([entryRow(t.board, pid)!.removed, entryRow(t.board, pid)!.removed_reason], [1, 'Werbung']);
    assert.equal(entryRow(t.board, deleted)!.removed, 0, 'an entry its author deleted stays as it was');
    const rows = modlogRows(t.board).filter((r) => r.public);
    assert.deepEqual(
      rows.map((r) => [r.action, r.pid]).sort(),
      [
        ['ban', 0],
        ['remove', reply],
        ['remove', top],
      ].sort(),
    );
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM reports WHERE closed_at = 0'), 0);
    assert.deepEqual((await t.board.client().get('/api/stats')).body, { ...stats, entries: stats.entries - 2 });
    assert.equal(t.board.app.services.db.value<string>('SELECT role FROM users WHERE username = ?', 'Spammer'), '');
  });

  test('purge must be 1 (or absent, empty or 0); anything else 400 input.invalid, field purge', async () => {
    await member(t.board, 'Vorsicht');
    assertError(await ban(t.members.Mia, 'Vorsicht', { reason: 'x', purge: 'yes' }), 400, 'input.invalid', 'purge');
    assert.equal((await ban(t.members.Mia, 'Vorsicht', { reason: 'x', purge: 0 })).status, 200);
  });

  test("a banned user's reports stay open", async () => {
    const reporter = await member(t.board, 'Melderin');
    const pid = await post(t.members.Anna, 'fragwürdig');
    assert.equal((await reporter.post(`/api/entry/${pid}/report`, { reason: 'fragwürdig' })).status, 200);
    assert.equal((await ban(t.members.Mia, 'Melderin')).status, 200);
    const queue = (await t.members.Mia.get('/api/mod/reports/0')).body;
    assert.deepEqual(queue.find((item: any) => item.entry.pid === pid)?.open_reports, 1);
  });
});

describe('removing an avatar', () => {
  const t = useBoard({ members: ['Anna'], moderators: ['Mia'] });

  test('answers {username, avatar: ""}, deletes the file, shows at once in cached pages, and is logged', async () => {
    const upload = await t.members.Anna.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
    ]);
    const avatar = upload.body.avatar as string;
    const pid = await post(t.members.Anna, 'mit Avatar');
    assert.equal(
      (await t.board.client().get(`/api/entry/${pid}/thread`)).body.entry.avatar,
      avatar,
      'cached with the avatar',
    );

    const answer = await t.members.Mia.post('/api/mod/user/Anna/avatar/remove', { reason: 'unpassendes Bild' });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Anna', avatar: '' });
    assert.equal(mediaFiles(t.board).includes(avatar), false);
    assert.equal((await visitor(t.board).get('/api/u/Anna/info')).body.avatar, '');
    assert.equal((await t.board.client().get(`/api/entry/${pid}/thread`)).body.entry.avatar, '');
    assert.equal((await t.board.client().get('/api/entry/feed/0')).body[0].avatar, '');
    assert.deepEqual(
      modlogRows(t.board)
        .filter((r) => r.public)
        .map((r) => [r.action, r.reason]),
      [['avatar_remove', 'unpassendes Bild']],
    );
  });

  test('without an avatar 409 mod.no_avatar, after the reason check; an unknown user 404 first', async () => {
    assertError(
      await t.members.Mia.post('/api/mod/user/Anna/avatar/remove', { reason: 'nochmal' }),
      409,
      'mod.no_avatar',
    );
    assertError(await t.members.Mia.post('/api/mod/user/Anna/avatar/remove'), 400, 'input.invalid', 'reason');
    assertError(await t.members.Mia.post('/api/mod/user/Niemand/avatar/remove'), 404, 'user.not_found');
  });
});

describe('the moderator role in the user info', () => {
  const t = useBoard({ members: ['Anna'], moderators: ['Mia'] });

  test('GET /api/user/info shows role "moderator" for moderators only; the public info never', async () => {
    assert.equal((await t.members.Mia.get('/api/user/info')).body.role, 'moderator');
    assert.equal('role' in (await t.members.Anna.get('/api/user/info')).body, false);
    assert.equal('role' in (await visitor(t.board).get('/api/u/Mia/info')).body, false);
  });

  test('a user registered but never logged in can be banned, and then cannot log in', async () => {
    await register(t.board, 'Neu');
    assert.equal((await ban(t.members.Mia, 'Neu')).status, 200);
    assertError(await login(t.board, 'Neu'), 403, 'auth.banned');
  });
});
