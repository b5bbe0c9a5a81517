import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  day,
  limitsOff,
  uidOf,
  useBoard,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/API.md "Invites" and "Rate limits": POST /api/user/invites has the write limit `invite` (10
 * a minute per account) and a bound of 10 invites in 7 days per account, revoked ones counted, so
 * making and revoking cannot grow the table; each 429 names its limit, and GET /api/user/invites
 * shows the weekly refusal before the click. Default limits; time moves on the board's clock.
 */

function storedInvites(board: TestBoard, user: string): number {
  return board.app.services.db.value('SELECT count(*) FROM invites WHERE uid = ?', uidOf(board, user));
}

/** Makes an invite and revokes it at once: the open bound never holds it back. */
async function makeAndRevoke(client: Client): Promise<void> {
  const made = await client.post('/api/user/invites');
  assert.equal(made.status, 201, made.text);
  assert.equal((await client.post(`/api/user/invites/${made.body.id}/revoke`)).status, 200);
}

describe('how many invites a member makes', () => {
  // Ida and Ole are the board's first accounts; Ida is trusted from the start, Ole is raised below.
  const t = useBoard({ members: ['Ida', 'Ole'], moderators: ['Mia'] });

  test('made and revoked in a burst: the eleventh in a minute is 429 naming the write limit, and stores nothing', async () => {
    for (let i = 0; i < 10; i++) await makeAndRevoke(t.members.Ida);
    const refused = await t.members.Ida.post('/api/user/invites');
    assertError(refused, 429, 'rate.limited');
    assertDocumented(refused);
    assert.match(refused.body.error.message, /^Zu viele Einladungen: höchstens 10 pro Minute, 30 pro Minute/);
    assert.equal(refused.headers.get('retry-after'), '60');
    assert.equal(storedInvites(t.board, 'Ida'), 10);
    t.board.clock.advance(60);
    const later = await t.members.Ida.post('/api/user/invites');
    assertError(later, 429, 'rate.limited', { note: 'a minute later the week holds' });
    assert.match(later.body.error.message, /höchstens 10 in 7 Tagen/);
    assert.equal(storedInvites(t.board, 'Ida'), 10);
  });

  test('the eleventh invite in 7 days is 429, revoked ones counted, until the oldest leaves the week', async () => {
    const raised = await t.members.Mia.post('/api/mod/user/Ole/trust', { level: 1 });
    assert.equal(raised.status, 200, raised.text);
    const firstAt = t.board.clock.now();
    for (let i = 0; i < 10; i++) {
      await makeAndRevoke(t.members.Ole);
      t.board.clock.advance(3600); // past the write limit's windows: only the week holds
    }
    const listed = await t.members.Ole.get('/api/user/invites');
    assertDocumented(listed);
    assert.equal(listed.body.open, 0, 'nothing open: the open bound is not what refuses');
    const refused = await t.members.Ole.post('/api/user/invites');
    assertError(refused, 429, 'rate.limited');
    assertDocumented(refused);
    const wait = firstAt + 7 * day - t.board.clock.now();
    assert.equal(refused.headers.get('retry-after'), String(wait));
    assert.equal(
      refused.body.error.message,
      'Zu viele Einladungen: höchstens 10 in 7 Tagen, zurückgezogene mitgezählt. Bitte warte noch 7 Tage.',
    );
    assert.deepEqual(listed.body.refusal, refused.body.error, 'the settings page reads it before the click');
    assert.equal(storedInvites(t.board, 'Ole'), 10);

    t.board.clock.advance(wait - 1);
    assertError(await t.members.Ole.post('/api/user/invites'), 429, 'rate.limited', { note: 'a second early' });
    t.board.clock.advance(1);
    assert.equal((await t.members.Ole.get('/api/user/invites')).body.refusal, undefined);
    assert.equal((await t.members.Ole.post('/api/user/invites')).status, 201, 'the oldest has left the week');
  });
});

describe('with BOARD_LIMITS=0 the weekly bound is lifted', () => {
  const t = useBoard({ env: limitsOff, members: ['Ida'] });

  test('eleven invites in a minute, each revoked: all made', async () => {
    for (let i = 0; i < 11; i++) await makeAndRevoke(t.members.Ida);
    assert.equal(storedInvites(t.board, 'Ida'), 11);
  });
});
