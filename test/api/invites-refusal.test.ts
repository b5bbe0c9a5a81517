import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertDocumented, assertError, limitsOff, makeModerator, member, uidOf, useBoard } from '../helpers.ts';

/**
 * docs/API.md "Invites": GET /api/user/invites says why a new invite would be refused now (the
 * settings page shows it before anyone clicks), as POST /api/user/invites answers it; GET
 * /api/mod/user/{username} says how many accounts a ban with tree=1 takes with it. Default limits.
 */
describe('why an invite would be refused, and the size of an invite tree', () => {
  // Ida is the board's first account: trusted from the start. Neu is a brand-new account (level 0).
  const t = useBoard({ members: ['Ida', 'Neu'], moderators: ['Mia'] });

  test('a level-0 account reads the refusal its invite would get: 403 trust.required, the same message', async () => {
    const list = await t.members.Neu.get('/api/user/invites');
    assert.equal(list.status, 200, list.text);
    assertDocumented(list);
    const made = await t.members.Neu.post('/api/user/invites');
    assertError(made, 403, 'trust.required');
    assert.deepEqual(list.body.refusal, made.body.error);
  });

  test('a trusted account under the limit has no refusal; at 5 open invites it reads the 429 it would get', async () => {
    const fresh = await t.members.Ida.get('/api/user/invites');
    assert.equal(fresh.body.refusal, undefined);
    for (let i = 0; i < 5; i++) assert.equal((await t.members.Ida.post('/api/user/invites')).status, 201);
    const full = await t.members.Ida.get('/api/user/invites');
    assertDocumented(full);
    assert.equal(full.body.open, 5);
    const sixth = await t.members.Ida.post('/api/user/invites');
    assertError(sixth, 429, 'rate.limited');
    assert.deepEqual(full.body.refusal, sixth.body.error);
    const first = full.body.invites[0].id;
    assert.equal((await t.members.Ida.post(`/api/user/invites/${first}/revoke`)).status, 200);
    assert.equal((await t.members.Ida.get('/api/user/invites')).body.refusal, undefined, 'a revoke frees a place');
  });

  test('tree_size counts the whole invite tree below an account, without moderators', async () => {
    await member(t.board, 'Kind');
    await member(t.board, 'Enkel');
    await member(t.board, 'Modkind');
    makeModerator(t.board, 'Modkind');
    const { db } = t.board.app.services;
    const invite = (child: string, parent: string) =>
      db.run('UPDATE users SET invited_by = ? WHERE uid = ?', uidOf(t.board, parent), uidOf(t.board, child));
    invite('Kind', 'Ida');
    invite('Modkind', 'Ida');
    invite('Enkel', 'Kind');
    const seen = await t.members.Mia.get('/api/mod/user/Ida');
    assert.equal(seen.status, 200, seen.text);
    assertDocumented(seen);
    assert.deepEqual(
      seen.body.invitees.map((i: { username: string }) => i.username),
      ['Modkind', 'Kind'],
    );
    assert.equal(seen.body.tree_size, 2, 'Kind and Enkel; the moderator stays');
    const banned = await t.members.Mia.post('/api/mod/user/Ida/ban', { reason: 'Spam-Ring', tree: 1 });
    assert.equal(banned.body.invitees_banned, seen.body.tree_size, 'the ban takes what the count said');
    assert.equal((await t.members.Mia.get('/api/mod/user/Enkel')).body.tree_size, 0);
  });
});

describe('with BOARD_LIMITS=0 a level-0 account may invite', () => {
  const t = useBoard({ env: limitsOff, members: ['Ida', 'Neu'] });

  test('no refusal, and the invite is made', async () => {
    assert.equal((await t.members.Neu.get('/api/user/info')).body.trust_level, 0);
    assert.equal((await t.members.Neu.get('/api/user/invites')).body.refusal, undefined);
    assert.equal((await t.members.Neu.post('/api/user/invites')).status, 201);
  });
});
