import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createResetLink } from '../../lib/accounts/reset-links.ts';
import {
  assertDocumented,
  assertError,
  member,
  password,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

const newPassword = 'a brand new secret';

/** The same account logged in once more, from another address (a second device). */
async function secondDevice(board: TestBoard, username: string, pass = password): Promise<Client> {
  const device = visitor(board);
  const login = await device.post('/api/auth/login', { user: username, pass });
  assert.equal(login.status, 200, login.text);
  return device;
}

function passHash(board: TestBoard, username: string): string {
  return board.app.services.db.one<{ pass_hash: string }>('SELECT pass_hash FROM users WHERE username = ?', username)!
    .pass_hash;
}

describe('POST /api/user/password', () => {
  const t = useBoard();

  test('changes the password: the new one logs in, the old one no longer does', async () => {
    const anna = await member(t.board, 'Anna Wechsel');
    const answer = await anna.post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'ok' });
    assertError(
      await visitor(t.board).post('/api/auth/login', { user: 'Anna Wechsel', pass: password }),
      401,
      'auth.bad_credentials',
    );
    assert.equal(
      (await visitor(t.board).post('/api/auth/login', { user: 'Anna Wechsel', pass: newPassword })).status,
      200,
    );
  });

  test('every other session ends, the calling one stays and no new cookie is set', async () => {
    const bert = await member(t.board, 'Bert Wechsel');
    const phone = await secondDevice(t.board, 'Bert Wechsel');
    const laptop = await secondDevice(t.board, 'Bert Wechsel');
    const outsider = await member(t.board, 'Unbeteiligt');

    const answer = await bert.post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers.getSetCookie().length, 0);
    assert.equal((await bert.get('/api/user/info')).status, 200);
    assertError(await phone.get('/api/user/info'), 401, 'auth.required');
    assertError(await laptop.get('/api/user/info'), 401, 'auth.required');
    assert.equal((await outsider.get('/api/user/info')).status, 200, "another account's sessions stay");
    const left = t.board.app.services.db.value(
      'SELECT count(*) FROM sessions WHERE uid = ?',
      uidOf(t.board, 'Bert Wechsel'),
    );
    assert.equal(left, 1);
  });

  test('outstanding reset links end', async () => {
    const cara = await member(t.board, 'Cara Wechsel');
    const token = createResetLink(t.board.app.services.db, uidOf(t.board, 'Cara Wechsel'), t.board.clock.now());
    assert.equal((await visitor(t.board).post('/api/auth/reset/check', { token })).status, 200);

    assert.equal(
      (await cara.post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword })).status,
      200,
    );
    assertError(await visitor(t.board).post('/api/auth/reset/check', { token }), 404, 'reset.invalid');
  });

  test('a wrong or missing current password answers 403 auth.bad_password (field pass) and changes nothing', async () => {
    const dora = await member(t.board, 'Dora Wechsel');
    const phone = await secondDevice(t.board, 'Dora Wechsel');
    const before = passHash(t.board, 'Dora Wechsel');
    assertError(
      await dora.post('/api/user/password', { pass: 'not the password', pass1: newPassword, pass2: newPassword }),
      403,
      'auth.bad_password',
      'pass',
    );
    assertError(
      await dora.post('/api/user/password', { pass1: newPassword, pass2: newPassword }),
      403,
      'auth.bad_password',
      'pass',
    );
    assert.equal(passHash(t.board, 'Dora Wechsel'), before);
    assert.equal((await phone.get('/api/user/info')).status, 200);
  });

  test('the current password is checked before the new ones', async () => {
    const emil = await member(t.board, 'Emil Wechsel');
    const answer = await emil.post('/api/user/password', {
      pass: 'not the password',
      pass1: 'short',
      pass2: 'different',
    });
    assertError(answer, 403, 'auth.bad_password', 'pass');
  });

  test('new passwords breaking the registration rules answer 400 auth.invalid naming the field', async () => {
    const frida = await member(t.board, 'Frida Wechsel');
    const phone = await secondDevice(t.board, 'Frida Wechsel');
    const before = passHash(t.board, 'Frida Wechsel');
    assertError(
      await frida.post('/api/user/password', { pass: password, pass1: 'short', pass2: 'short' }),
      400,
      'auth.invalid',
      'pass1',
    );
    assertError(
      await frida.post('/api/user/password', { pass: password, pass1: 'x'.repeat(1025), pass2: 'x'.repeat(1025) }),
      400,
      'auth.invalid',
      'pass1',
    );
    assertError(
      await frida.post('/api/user/password', { pass: password, pass1: newPassword, pass2: `${newPassword}!` }),
      400,
      'auth.invalid',
      'pass2',
    );
    assertError(await frida.post('/api/user/password', { pass: password }), 400, 'auth.invalid', 'pass1');
    assert.equal(passHash(t.board, 'Frida Wechsel'), before);
    assert.equal((await phone.get('/api/user/info')).status, 200, 'a refused change ends no session');
  });

  test('needs a session', async () => {
    assertError(
      await visitor(t.board).post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword }),
      401,
      'auth.required',
    );
  });

  test('shares the login rate-limit group of the address', async () => {
    const gerd = await member(t.board, 'Gerd Wechsel', '10.99.0.1'); // one login so far from this address
    for (let i = 0; i < 19; i++) {
      assertError(
        await gerd.post('/api/user/password', { pass: 'wrong guess', pass1: newPassword, pass2: newPassword }),
        403,
        'auth.bad_password',
      );
    }
    const limited = await gerd.post('/api/user/password', { pass: password, pass1: newPassword, pass2: newPassword });
    assertError(limited, 429, 'rate.limited');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assertError(
      await t.board.client({ ip: '10.99.0.1' }).post('/api/auth/login', { user: 'Gerd Wechsel', pass: password }),
      429,
      'rate.limited',
    );
  });

  test('a reset still ends every session and reset link through the same step', async () => {
    const hugo = await member(t.board, 'Hugo Wechsel');
    const uid = uidOf(t.board, 'Hugo Wechsel');
    const token = createResetLink(t.board.app.services.db, uid, t.board.clock.now());
    const reset = await visitor(t.board).post('/api/auth/reset', { token, pass1: newPassword, pass2: newPassword });
    assert.equal(reset.status, 200, reset.text);
    assertError(await hugo.get('/api/user/info'), 401, 'auth.required');
    const db = t.board.app.services.db;
    assert.equal(db.value('SELECT count(*) FROM sessions WHERE uid = ?', uid), 1, 'only the session the reset made');
    assert.equal(db.value('SELECT count(*) FROM reset_links WHERE uid = ?', uid), 0);
  });
});
