import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  modlogRows,
  password,
  runAdminHere,
  uidOf,
  useBoard,
  visitor,
} from '../helpers.ts';

/**
 * docs/API.md "Registration": POST /api/mod/applications/reject {from, to, reason} rejects every
 * application stored in that span of registration times in one step (a wave of bots fills the
 * queue faster than anyone decides one by one); applications outside the span, and accounts that
 * are not waiting, stay as they are. Default limits.
 */
describe('moderators reject a wave of applications in one step', () => {
  const t = useBoard({ members: ['Olga'], moderators: ['Mia'] });
  // The members register first; then a moderator switches the door to approval.
  before(async () =>
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'approval' })).status, 200),
  );
  const answer = 'Ich lese hier seit Wochen mit und möchte mitdiskutieren.';

  async function apply(user: string) {
    const sent = await visitor(t.board).post('/api/auth/newuser', {
      user,
      pass1: password,
      pass2: password,
      application: answer,
    });
    assert.equal(sent.status, 202, sent.text);
  }
  const statusOf = (user: string) =>
    t.board.app.services.db.one<{ status: string }>('SELECT status FROM users WHERE username = ?', user)?.status;

  test('the span from the first to the last time shown is rejected; before and after it stay waiting', async () => {
    await apply('Vorher');
    t.board.clock.advance(60);
    const from = t.board.clock.now();
    for (const name of ['Welle 1', 'Welle 2', 'Welle 3']) await apply(name);
    t.board.clock.advance(30);
    await apply('Welle 4');
    const to = t.board.clock.now();
    t.board.clock.advance(60);
    await apply('Danach');

    const done = await t.members.Mia.post('/api/mod/applications/reject', {
      from: String(from),
      to: String(to),
      reason: 'Ansturm von Bots',
    });
    assert.equal(done.status, 200, done.text);
    assert.deepEqual(done.body, { rejected: 4, usernames: ['Welle 1', 'Welle 2', 'Welle 3', 'Welle 4'] });
    assertDocumented(done);
    for (const name of ['Welle 1', 'Welle 2', 'Welle 3', 'Welle 4']) assert.equal(statusOf(name), 'rejected', name);
    assert.equal(statusOf('Vorher'), 'pending');
    assert.equal(statusOf('Danach'), 'pending');

    const login = await visitor(t.board).post('/api/auth/login', { user: 'Welle 2', pass: password });
    assertError(login, 403, 'auth.rejected');
    assert.equal(login.body.reason, 'Ansturm von Bots', 'each applicant sees the reason');
    const rejections = modlogRows(t.board).filter((r) => r.action === 'reject');
    assert.deepEqual(
      rejections.map((r) => r.uid).sort((a, b) => a - b),
      ['Welle 1', 'Welle 2', 'Welle 3', 'Welle 4'].map((n) => uidOf(t.board, n)).sort((a, b) => a - b),
      'one modlog row per account, as a single rejection writes',
    );
    assert.ok(
      rejections.every((r) => r.reason === ''),
      'the public log keeps the reason to the applicants',
    );

    const again = await t.members.Mia.post('/api/mod/applications/reject', { from: String(from), to: String(to) });
    assert.deepEqual(again.body, { rejected: 0, usernames: [] }, 'decided accounts are not decided twice');
  });

  test('missing or reversed times and an overlong reason are 400 naming the field (error.field); members are refused', async () => {
    const now = t.board.clock.now();
    for (const [fields, field] of [
      [{ to: String(now) }, 'from'],
      [{ from: String(now) }, 'to'],
      [{ from: String(now), to: String(now - 1) }, 'to'],
      [{ from: 'gestern', to: String(now) }, 'from'],
      [{ from: '0', to: String(now), reason: 'x'.repeat(501) }, 'reason'],
    ] as [Record<string, string>, string][]) {
      const refused = await t.members.Mia.post('/api/mod/applications/reject', fields);
      assertError(refused, 400, 'input.invalid');
      assert.equal(refused.body.error.field, field, JSON.stringify(fields));
    }
    assert.equal(statusOf('Vorher'), 'pending', 'nothing decided by a refused request');
    assertError(
      await t.members.Olga.post('/api/mod/applications/reject', { from: '0', to: String(now) }),
      403,
      'mod.required',
    );
  });

  test('board-admin reject-between does the same at the command line, with times as it prints them', async () => {
    await apply('Konsole 1');
    await apply('Konsole 2');
    const refused = await runAdminHere(t.board, ['reject-between', '0m', '2h']);
    assert.equal(refused.code, 2, 'a span that ends before it starts is a usage error');
    assert.match(refused.stderr, /<to> must not be before <from>/);
    assert.equal(statusOf('Konsole 1'), 'pending');
    const future = await runAdminHere(t.board, ['reject-between', '2100-01-01', '0m', '--reason', 'Ansturm']);
    assert.equal(future.code, 2, 'a start after the end is refused whatever the form');
    // board-admin reads the real clock and the test board's clock has moved ahead: an end far out.
    const run = await runAdminHere(t.board, ['reject-between', '1970-01-01', '2100-01-01', '--reason', 'Ansturm']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^\d+ applications rejected: .*Konsole 1, Konsole 2/m);
    assert.equal(statusOf('Konsole 2'), 'rejected');
    const login = await visitor(t.board).post('/api/auth/login', { user: 'Konsole 1', pass: password });
    assert.equal(login.body.reason, 'Ansturm');
  });
});
