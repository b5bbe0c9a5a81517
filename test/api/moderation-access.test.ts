import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setModerator } from '../../lib/moderation/accounts.ts';
import {
  assertError,
  imageFixture,
  limitsOff,
  modlogRows,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
} from '../helpers.ts';

/** docs/API.md "Moderation": who may call /api/mod/..., the order of checks, the fields, and the log row in the same transaction. */

/** Every moderator endpoint with a path that would otherwise answer 400 (a malformed pid or page) or 404. */
const malformed: [string, string][] = [
  ['GET', '/api/mod/reports/x'],
  ['GET', '/api/mod/queue'],
  ['POST', '/api/mod/entry/x/remove'],
  ['POST', '/api/mod/entry/x/restore'],
  ['POST', '/api/mod/entry/x/dismiss'],
  ['POST', '/api/mod/user/Niemand/ban'],
  ['POST', '/api/mod/user/Niemand/unban'],
  ['POST', '/api/mod/user/Niemand/avatar/remove'],
];

const send = (client: Client, [method, path]: [string, string]) =>
  method === 'GET' ? client.get(path) : client.post(path);

describe('who may moderate', () => {
  const t = useBoard({ members: ['Anna'], moderators: ['Mia'] });

  test('without a session every /api/mod endpoint answers 401 auth.required', async () => {
    for (const route of malformed)
      assertError(await send(visitor(t.board), route), 401, 'auth.required', { note: route.join(' '), exact: true });
  });

  test('a plain user gets 403 mod.required, before the path 400s and 404s', async () => {
    for (const route of malformed)
      assertError(await send(t.members.Anna, route), 403, 'mod.required', { note: route.join(' '), exact: true });
  });

  test('a moderator gets the path 400 next, then the 404', async () => {
    assertError(await t.members.Mia.get('/api/mod/reports/x'), 400, 'input.invalid', 'page');
    assertError(await t.members.Mia.get('/api/mod/reports/101'), 400, 'input.invalid', 'page');
    for (const action of ['remove', 'restore', 'dismiss']) {
      assertError(await t.members.Mia.post(`/api/mod/entry/x/${action}`), 400, 'input.invalid', 'pid');
      assertError(await t.members.Mia.post(`/api/mod/entry/987654/${action}`, { reason: 'x' }), 404, 'entry.not_found');
    }
    for (const action of ['ban', 'unban', 'avatar/remove']) {
      assertError(await t.members.Mia.post(`/api/mod/user/Niemand/${action}`, { reason: 'x' }), 404, 'user.not_found');
    }
  });

  test('a foreign Origin answers 403 csrf.bad_origin before the session check', async () => {
    const foreign = { origin: 'https://evil.example' };
    assertError(await t.members.Mia.post('/api/mod/entry/1/remove', { reason: 'x' }, foreign), 403, 'csrf.bad_origin');
    assertError(
      await visitor(t.board).post('/api/mod/user/Anna/ban', { reason: 'x' }, foreign),
      403,
      'csrf.bad_origin',
    );
  });

  test('the body is read before the existence check, and the fields are checked after it', async () => {
    const textBody = { 'content-type': 'text/plain' };
    const mia = t.members.Mia;
    assertError(
      await mia.send('POST', '/api/mod/entry/987654/remove', 'reason=x', textBody),
      415,
      'input.unsupported_type',
    );
    assertError(
      await mia.send('POST', '/api/mod/user/Niemand/ban', 'reason=x', textBody),
      415,
      'input.unsupported_type',
    );
    const pid = await post(t.members.Anna, 'Felder');
    assertError(await mia.post(`/api/mod/entry/${pid}/remove`), 400, 'input.invalid', 'reason');
  });

  test('a moderator whose role ends gets 403 mod.required at the next request', async () => {
    const { db } = t.board.app.services;
    setModerator(db, uidOf(t.board, 'Mia'), false, t.board.clock.now());
    try {
      assertError(await t.members.Mia.get('/api/mod/queue'), 403, 'mod.required');
    } finally {
      setModerator(db, uidOf(t.board, 'Mia'), true, t.board.clock.now());
    }
    assert.equal((await t.members.Mia.get('/api/mod/queue')).status, 200);
  });
});

describe('the fields of moderation actions', () => {
  // More bans in a minute than the write limit modAccount allows: this suite is about the fields.
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });

  test('reason missing, empty, only spaces or over 500 characters: 400 input.invalid, field reason; 500 emoji are fine', async () => {
    const pid = await post(t.members.Anna, 'Grund?');
    for (const reason of [undefined, '', '   \n ', 'x'.repeat(501)]) {
      assertError(await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason }), 400, 'input.invalid', {
        field: 'reason',
        note: JSON.stringify(reason),
      });
      assertError(await t.members.Mia.post('/api/mod/user/Bert/ban', { reason }), 400, 'input.invalid', {
        field: 'reason',
        note: JSON.stringify(reason),
      });
    }
    await visitor(t.board).post(`/api/entry/${pid}/report`);
    assertError(
      await t.members.Mia.post(`/api/mod/entry/${pid}/dismiss`, { reason: 'x'.repeat(501) }),
      400,
      'input.invalid',
      'reason',
    );
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason: '🚫'.repeat(500) })).status, 200);
  });

  test('a reason is stored as one line: line breaks and control characters become spaces, ends trimmed', async () => {
    const pid = await post(t.members.Anna, 'Zeilen');
    assert.equal(
      (await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason: '  Spam,\r\n  wiederholt\u0007 ' })).status,
      200,
    );
    assert.equal(
      (await t.board.client().get(`/api/entry/${pid}/thread`)).body.entry.removed_reason,
      'Spam, wiederholt',
    );
  });

  test('days must be a whole number from 1 to 3650: else 400 input.invalid, field days; empty is permanent', async () => {
    for (const days of ['0', '3651', '1.5', '-1', 'zwei', ' 7x']) {
      assertError(await t.members.Mia.post('/api/mod/user/Bert/ban', { reason: 'x', days }), 400, 'input.invalid', {
        field: 'days',
        note: days,
      });
    }
    assert.equal(
      (await t.members.Mia.post('/api/mod/user/Bert/ban', { reason: 'x', days: '3650' })).body.banned_until,
      t.board.clock.now() + 3650 * 86_400,
    );
    assert.equal((await t.members.Mia.post('/api/mod/user/Bert/ban', { reason: 'x', days: '' })).body.banned_until, -1);
  });

  test('the checks of a ban come in order: 404 user, 403 moderator, then the fields', async () => {
    assertError(await t.members.Mia.post('/api/mod/user/Niemand/ban', { days: 'x' }), 404, 'user.not_found');
    assertError(await t.members.Mia.post('/api/mod/user/Mia/ban', { days: 'x' }), 403, 'mod.target_moderator');
  });
});

describe('every action and its log row in one transaction', () => {
  const t = useBoard({ members: ['Anna'], moderators: ['Mia'] });

  /** Runs the request while every INSERT INTO modlog fails; expects 500 and no change at all. */
  async function withFailingLog(request: () => Promise<{ status: number; text: string }>): Promise<void> {
    const { db } = t.board.app.services;
    const snapshot = () =>
      ['users', 'sessions', 'entries', 'reports', 'counters', 'modlog'].map((table) =>
        db.all(`SELECT * FROM ${table} ORDER BY 1`),
      );
    const before = snapshot();
    db.setFault((sql) => (sql.includes('INSERT INTO modlog') ? new Error('disk I/O error') : undefined));
    let answer: Awaited<ReturnType<typeof request>> | undefined;
    try {
      answer = await request();
    } finally {
      db.setFault(undefined);
    }
    assertError(answer as any, 500, 'internal');
    assert.deepEqual(snapshot(), before, 'a failing log write leaves neither the action nor the row');
  }

  test('remove, restore, dismiss, ban, unban and avatar-remove change nothing when their log row cannot be written', async () => {
    const mia = t.members.Mia;
    const pid = await post(t.members.Anna, 'Transaktion');
    await visitor(t.board).post(`/api/entry/${pid}/report`, { reason: 'x' });
    await t.members.Anna.postMultipart('/api/user/avatar', {}, [
      { name: 'avatar', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
    ]);

    await withFailingLog(() => mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'x' }));
    await withFailingLog(() => mia.post(`/api/mod/entry/${pid}/dismiss`));
    await withFailingLog(() => mia.post('/api/mod/user/Anna/ban', { reason: 'x', purge: 1 }));
    await withFailingLog(() => mia.post('/api/mod/user/Anna/avatar/remove', { reason: 'x' }));
    assert.notEqual((await t.board.client().get('/api/u/Anna/info')).body.avatar, '', 'the avatar stays');

    assert.equal((await mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'x' })).status, 200);
    await withFailingLog(() => mia.post(`/api/mod/entry/${pid}/restore`));
    assert.equal((await mia.post('/api/mod/user/Anna/ban', { reason: 'x' })).status, 200);
    await withFailingLog(() => mia.post('/api/mod/user/Anna/unban'));
    assert.deepEqual(
      modlogRows(t.board)
        .filter((r) => r.public)
        .map((r) => r.action),
      ['ban', 'remove'],
    );
  });
});
