import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  day,
  member,
  modlogRows,
  password,
  runAdmin,
  runAdminInProcess,
  uidOf,
  useBoard,
  visitor,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/API.md "Invites": hashed single-use tokens valid 7 days, the link with the
 * token in its fragment, one's own list and revoke, who invited whom for moderators, a ban that
 * takes the invite tree, and an invite that skips approval. Default limits.
 */

function registerWith(board: TestBoard, user: string, invite?: string, extra: Record<string, string> = {}) {
  return visitor(board).post('/api/auth/newuser', { user, pass1: password, pass2: password, invite, ...extra });
}

describe('invites', () => {
  // Ida is the board's first account: trusted from the start. Neu is a brand-new account (level 0).
  const t = useBoard({ members: ['Ida', 'Neu'], moderators: ['Mia'] });
  let token = '';
  let inviteId = 0;

  test('on an invite board, registering without an invite is 403 auth.invite_required; a bad token 404 invite.invalid', async () => {
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'invite' })).status, 200);
    assert.equal((await visitor(t.board).get('/api/auth/registration')).body.mode, 'invite');
    assertError(await registerWith(t.board, 'Gast'), 403, 'auth.invite_required');
    assertError(await registerWith(t.board, 'Gast', 'x'.repeat(43)), 404, 'invite.invalid');
    assertError(await registerWith(t.board, 'Gast', 'kaputt'), 404, 'invite.invalid');
  });

  test("a trusted member makes an invite: 201 with the token in the link's fragment, only its hash stored", async () => {
    const made = await t.members.Ida.post('/api/user/invites');
    assert.equal(made.status, 201, made.text);
    assertDocumented(made);
    token = made.body.token;
    inviteId = made.body.id;
    assert.equal(made.body.url, `${t.board.config.origin}/register#${token}`);
    assert.equal(made.body.expires, t.board.clock.now() + 7 * day);
    const { db } = t.board.app.services;
    const row = db.one<{ token_hash: Buffer; uid: number }>(
      'SELECT token_hash, uid FROM invites WHERE id = ?',
      inviteId,
    )!;
    assert.deepEqual(row.token_hash, createHash('sha256').update(token).digest());
    assert.equal(row.uid, uidOf(t.board, 'Ida'));
  });

  test('a level-0 account cannot invite (403 trust.required); a moderator can raise it to level 1', async () => {
    assertError(await t.members.Neu.post('/api/user/invites'), 403, 'trust.required');
    const raised = await t.members.Mia.post('/api/mod/user/Neu/trust', { level: 1 });
    assert.equal(raised.status, 200, raised.text);
    assert.equal((await t.members.Neu.post('/api/user/invites')).status, 201);
    const row = modlogRows(t.board)[0]!;
    assert.deepEqual([row.action, row.public], ['trust', 0], 'logged for moderators only');
  });

  test('two registrations with one invite at once: one account, the other 404 invite.invalid', async () => {
    const [a, b] = await Promise.all([registerWith(t.board, 'Gast A', token), registerWith(t.board, 'Gast B', token)]);
    assert.deepEqual([a.status, b.status].sort(), [201, 404]);
    const loser = a.status === 404 ? 'Gast A' : 'Gast B';
    const winner = a.status === 201 ? 'Gast A' : 'Gast B';
    assertError(a.status === 404 ? a : b, 404, 'invite.invalid');
    const { db } = t.board.app.services;
    assert.equal(db.one('SELECT 1 FROM users WHERE username = ?', loser), undefined, 'the loser left no account');
    assert.equal((await visitor(t.board).post('/api/auth/login', { user: winner, pass: password })).status, 200);
    assertError(await registerWith(t.board, 'Gast C', token), 404, 'invite.invalid', { note: 'used' });
    const list = await t.members.Ida.get('/api/user/invites');
    assert.equal(list.status, 200);
    assertDocumented(list);
    assert.deepEqual(
      { status: list.body.invites[0].status, used_by: list.body.invites[0].used_by },
      { status: 'used', used_by: winner },
    );
    const seen = await t.members.Mia.get(`/api/mod/user/${encodeURIComponent(winner)}`);
    assert.equal(seen.status, 200);
    assertDocumented(seen);
    assert.equal(seen.body.invited_by, 'Ida');
    assert.equal(seen.body.trust_level, 0);
    const inviter = await t.members.Mia.get('/api/mod/user/Ida');
    assert.deepEqual(
      inviter.body.invitees.map((i: { username: string }) => i.username),
      [winner],
    );
    assert.equal(inviter.body.trust_level, 1, 'the first account starts trusted');
  });

  test("an invite expires after 7 days; a revoked one is dead; nobody revokes another's", async () => {
    const old = (await t.members.Ida.post('/api/user/invites')).body;
    const revoked = (await t.members.Ida.post('/api/user/invites')).body;
    assertError(await t.members.Neu.post(`/api/user/invites/${revoked.id}/revoke`), 404, 'invite.not_found');
    const done = await t.members.Ida.post(`/api/user/invites/${revoked.id}/revoke`);
    assert.deepEqual(done.body, { id: revoked.id, status: 'revoked' });
    assertError(await t.members.Ida.post(`/api/user/invites/${revoked.id}/revoke`), 409, 'invite.not_open');
    assertError(await registerWith(t.board, 'Gast D', revoked.token), 404, 'invite.invalid');
    t.board.clock.advance(7 * day);
    const expired = await registerWith(t.board, 'Gast D', old.token);
    assertError(expired, 404, 'invite.invalid', { note: 'expired' });
    assert.equal(
      expired.body.error.message,
      'Diese Einladung gilt nicht (mehr): Sie ist ungültig, abgelaufen, schon benutzt oder zurückgezogen. Eine Einladung von einem Mitglied gilt 7 Tage.',
      'it says how long an invite lasts',
    );
    const statuses = (await t.members.Ida.get('/api/user/invites')).body.invites.map(
      (i: { status: string }) => i.status,
    );
    assert.deepEqual(statuses.slice(0, 2), ['revoked', 'expired']);
  });

  test('at most 5 open invites at a time: the sixth is 429 naming the limit', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await t.members.Ida.post('/api/user/invites')).status, 201);
    const refused = await t.members.Ida.post('/api/user/invites');
    assertError(refused, 429, 'rate.limited');
    assert.match(refused.body.error.message, /höchstens 5/);
  });

  test('in approval mode an invite skips the application', async () => {
    await t.members.Mia.post('/api/mod/registration', { mode: 'approval' });
    const open = (await t.members.Neu.post('/api/user/invites')).body;
    const made = await registerWith(t.board, 'Eingeladen', open.token);
    assert.equal(made.status, 201, made.text);
    assert.equal((await visitor(t.board).post('/api/auth/login', { user: 'Eingeladen', pass: password })).status, 200);
  });

  test('a ban with tree=1 takes every invitee with it, each logged', async () => {
    await t.members.Mia.post('/api/mod/registration', { mode: 'open' });
    const grand = await member(t.board, 'Enkel');
    void grand;
    const { db } = t.board.app.services;
    // Neu invited Eingeladen; make Eingeladen the inviter of Enkel, as a registration would.
    db.run('UPDATE users SET invited_by = ? WHERE uid = ?', uidOf(t.board, 'Eingeladen'), uidOf(t.board, 'Enkel'));
    const banned = await t.members.Mia.post('/api/mod/user/Neu/ban', { reason: 'Spam-Ring', tree: 1 });
    assert.equal(banned.status, 200, banned.text);
    assertDocumented(banned);
    assert.equal(banned.body.invitees_banned, 2);
    for (const name of ['Neu', 'Eingeladen', 'Enkel'])
      assert.equal(db.one<{ b: number }>('SELECT banned_until AS b FROM users WHERE username = ?', name)!.b, -1, name);
    const bans = modlogRows(t.board).filter((r) => r.action === 'ban');
    assert.equal(bans.length, 3);
    assert.ok(bans.some((r) => r.reason === 'Spam-Ring (Einladungsbaum von Neu)'));
    assertError(
      await t.members.Mia.post('/api/mod/user/Ida/ban', { reason: 'x', tree: 2 }),
      400,
      'input.invalid',
      'tree',
    );
  });
});

describe('board-admin and the door', () => {
  const t = useBoard({ env: { BOARD_REGISTRATION: 'closed' } });
  /** The CLI in this process (one real process below is enough to prove the binary). */
  const admin = (args: string[]) =>
    runAdminInProcess(args, {
      BOARD_DATA: t.board.config.dataDir,
      BOARD_ORIGIN: t.board.config.origin,
      BOARD_REGISTRATION: 'closed',
    });

  test('user-add works on a closed board and prints a reset link that sets the password', async () => {
    const run = await runAdmin(t.board, ['user-add', 'Handarbeit']);
    assert.equal(run.code, 0, run.stderr);
    const match = /^(\S+)\/reset#([A-Za-z0-9_-]{43})\n$/.exec(run.stdout);
    assert.ok(match, run.stdout);
    const client = visitor(t.board);
    const reset = await client.post('/api/auth/reset', { token: match[2], pass1: password, pass2: password });
    assert.equal(reset.status, 200, reset.text);
    assert.equal((await client.get('/api/user/info')).body.trust_level, 1, 'CLI accounts start trusted');
    assert.equal((await admin(['user-add', 'handarbeit'])).code, 1, 'taken');
  });

  test('invite --days prints a link that works even in invite mode; registration sets the mode', async () => {
    // Set at the command line: by the operator, not by a moderator (none was involved).
    assert.match(
      (await admin(['registration', 'invite'])).stdout,
      /^invite \(set by operator at \d{4}-\d\d-\d\d \d\d:\d\d UTC\)\n$/,
    );
    assert.match(
      (await admin(['registration', 'closed'])).stdout,
      /^closed \(set by config/,
      'the configured mode again',
    );
    const changes = (await admin(['modlog'])).stdout.split('\n').filter((line) => line.includes('registration'));
    assert.equal(changes.length, 2, changes.join('\n'));
    assert.match(changes[0]!, / {2}registration set to closed {2}by admin$/, 'no account, and no reason but the mode');
    assert.match(changes[1]!, / {2}registration set to invite {2}by admin$/);
    await admin(['registration', 'invite']);
    const run = await admin(['invite', '--days', '2']);
    assert.equal(run.code, 0, run.stderr);
    const token = /#([A-Za-z0-9_-]{43})\n$/.exec(run.stdout)![1]!;
    const { db } = t.board.app.services;
    const row = db.one<{ expires: number; created_at: number }>(
      'SELECT expires, created_at FROM invites ORDER BY id DESC',
    )!;
    assert.equal(row.expires - row.created_at, 2 * day);
    assert.equal((await registerWith(t.board, 'Per Link', token)).status, 201);
    assert.equal((await admin(['invite', '--days', '0'])).code, 2);
  });

  test('applications, approve and reject at the command line', async () => {
    await admin(['registration', 'approval']);
    const answer = 'Ich möchte gern über Bücher schreiben.';
    for (const user of ['Antrag Eins', 'Antrag Zwei'])
      assert.equal(
        (
          await visitor(t.board).post('/api/auth/newuser', {
            user,
            pass1: password,
            pass2: password,
            application: answer,
          })
        ).status,
        202,
      );
    const list = await admin(['applications']);
    assert.match(list.stdout, /^Antrag Eins {2}\d{4}-\d\d-\d\d \d\d:\d\d {2}\(\d+ in that minute\)\n {2}Ich möchte/m);
    assert.equal((await admin(['approve', 'Antrag Eins'])).code, 0);
    assert.equal((await admin(['approve', 'Antrag Eins'])).code, 1, 'decided already');
    assert.equal((await admin(['reject', 'Antrag Zwei', '--reason', 'Leider nein'])).code, 0);
    const login = await visitor(t.board).post('/api/auth/login', { user: 'Antrag Zwei', pass: password });
    assert.equal(login.body.reason, 'Leider nein');
    assert.equal((await admin(['applications'])).stdout, 'no applications\n');
  });
});
