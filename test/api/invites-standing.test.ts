import assert from 'node:assert/strict';
import { afterEach, before, describe, test } from 'node:test';
import {
  assertError,
  day,
  password,
  passwordGate,
  runAdminHere,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/API.md "Invites": an invite admits only while its inviter is in good standing. A ban (also
 * one that takes the invite tree, and the command line's) and an account deletion revoke the
 * account's open invites in their own transaction, and a registration whose inviter is banned
 * while its password is hashed is refused in the transaction that would create the account.
 * Approval mode, so a wrongly honoured invite shows as a 201 where the door says 202. Default limits.
 */

function registerWith(board: TestBoard, user: string, invite: string) {
  return visitor(board).post('/api/auth/newuser', { user, pass1: password, pass2: password, invite });
}

/** An invite of `client`'s account: its token and id. */
async function inviteOf(client: Client): Promise<{ token: string; id: number }> {
  const made = await client.post('/api/user/invites');
  assert.equal(made.status, 201, made.text);
  return { token: made.body.token, id: made.body.id };
}

function inviteStatuses(board: TestBoard, inviter: string): { used_by: number; revoked: boolean }[] {
  return board.app.services.db
    .all<{ used_by: number; revoked_at: number }>(
      'SELECT used_by, revoked_at FROM invites WHERE uid = ? ORDER BY id',
      uidOf(board, inviter),
    )
    .map((row) => ({ used_by: row.used_by, revoked: row.revoked_at !== 0 }));
}

function accountExists(board: TestBoard, user: string): boolean {
  return board.app.services.db.one('SELECT 1 FROM users WHERE username = ?', user) !== undefined;
}

describe("an invite is worth its inviter's standing", () => {
  const gate = passwordGate();
  const inviters = ['Ringchef', 'Kurzgesperrt', 'Konsole', 'Geht Bald', 'Im Flug', 'Gut Beleumundet'] as const;
  const t = useBoard({ start: { passwords: gate.passwords }, members: inviters, moderators: ['Mia'] });
  before(async () => {
    // Every inviter at trust level 1 (a moderator raises it), then the door switches to approval.
    for (const name of inviters) {
      const raised = await t.members.Mia.post(`/api/mod/user/${encodeURIComponent(name)}/trust`, { level: 1 });
      assert.equal(raised.status, 200, raised.text);
    }
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'approval' })).status, 200);
  });
  afterEach(() => gate.releaseAll());

  test("a tree ban revokes the banned inviter's open invites: a left-over one is 404 invite.invalid, no account", async () => {
    const ring = t.members.Ringchef;
    const [used, left, other] = [await inviteOf(ring), await inviteOf(ring), await inviteOf(ring)];
    const first = await registerWith(t.board, 'Erster Gast', used.token);
    assert.equal(first.status, 201, 'an invite skips approval while its inviter stands');

    const banned = await t.members.Mia.post('/api/mod/user/Ringchef/ban', { reason: 'Spam-Ring', tree: 1 });
    assert.equal(banned.status, 200, banned.text);
    assert.equal(banned.body.invitees_banned, 1);

    const refused = await registerWith(t.board, 'Zweiter Gast', left.token);
    assertError(refused, 404, 'invite.invalid');
    assert.match(refused.body.error.message, /gilt nicht \(mehr\)/);
    assert.equal(accountExists(t.board, 'Zweiter Gast'), false);
    assertError(await registerWith(t.board, 'Dritter Gast', other.token), 404, 'invite.invalid');
    assert.deepEqual(inviteStatuses(t.board, 'Ringchef'), [
      { used_by: uidOf(t.board, 'Erster Gast'), revoked: false },
      { used_by: 0, revoked: true },
      { used_by: 0, revoked: true },
    ]);
  });

  test('a plain ban for some days revokes them too, and its end gives none back', async () => {
    const inviter = t.members.Kurzgesperrt;
    const invite = await inviteOf(inviter);
    const banned = await t.members.Mia.post('/api/mod/user/Kurzgesperrt/ban', { reason: 'Pause', days: 1 });
    assert.equal(banned.status, 200, banned.text);
    assertError(await registerWith(t.board, 'Gast Kurz', invite.token), 404, 'invite.invalid');
    t.board.clock.advance(day + 1);
    assertError(await registerWith(t.board, 'Gast Kurz', invite.token), 404, 'invite.invalid', {
      note: 'after the ban',
    });
    assert.deepEqual(inviteStatuses(t.board, 'Kurzgesperrt'), [{ used_by: 0, revoked: true }]);
  });

  test("the command line's ban revokes them", async () => {
    const inviter = t.members.Konsole;
    const invite = await inviteOf(inviter);
    const run = await runAdminHere(t.board, ['ban', 'Konsole', '--reason', 'Spam']);
    assert.equal(run.code, 0, run.stderr);
    assertError(await registerWith(t.board, 'Gast Konsole', invite.token), 404, 'invite.invalid');
    assert.equal(accountExists(t.board, 'Gast Konsole'), false);
    assert.deepEqual(inviteStatuses(t.board, 'Konsole'), [{ used_by: 0, revoked: true }]);
  });

  test('an account that deleted itself: its invite is 404 invite.invalid and revoked', async () => {
    const inviter = t.members['Geht Bald'];
    const invite = await inviteOf(inviter);
    const uid = uidOf(t.board, 'Geht Bald');
    const gone = await inviter.post('/api/user/delete', { pass1: password });
    assert.equal(gone.status, 200, gone.text);
    assertError(await registerWith(t.board, 'Gast Danach', invite.token), 404, 'invite.invalid');
    assert.equal(accountExists(t.board, 'Gast Danach'), false);
    const row = t.board.app.services.db.one<{ revoked_at: number }>(
      'SELECT revoked_at FROM invites WHERE uid = ?',
      uid,
    );
    assert.notEqual(row?.revoked_at, 0, 'revoked with the deletion');
  });

  test('an inviter banned while the registration hashes its password: 404 invite.invalid, no account', async () => {
    const inviter = t.members['Im Flug'];
    const invite = await inviteOf(inviter);
    const held = gate.holdNext('hash');
    const registering = registerWith(t.board, 'Gast im Flug', invite.token);
    await held.reachedBy(registering); // the invite was looked up and admitted; nothing is written yet
    assert.equal((await t.members.Mia.post('/api/mod/user/Im%20Flug/ban', { reason: 'Spam' })).status, 200);
    held.release();
    assertError(await registering, 404, 'invite.invalid');
    assert.equal(accountExists(t.board, 'Gast im Flug'), false);
  });

  test("an invite of an inviter in good standing still admits at once, and the administrator's always", async () => {
    const inviter = t.members['Gut Beleumundet'];
    const invite = await inviteOf(inviter);
    assert.equal((await registerWith(t.board, 'Willkommen', invite.token)).status, 201);
    const run = await runAdminHere(t.board, ['invite']);
    const token = /#([A-Za-z0-9_-]{43})\n$/.exec(run.stdout)![1]!;
    assert.equal((await registerWith(t.board, 'Vom Admin', token)).status, 201);
  });
});
