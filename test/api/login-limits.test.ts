import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertError,
  member,
  password,
  quickHashes,
  register,
  solvedAltcha,
  useBoard,
  type Answer,
  type TestBoard,
} from '../helpers.ts';

/**
 * Finding 2 of the abuse review: the password-hashing line had no bound, and failed logins were
 * only counted per address. docs/API.md "Rate limits" and "Errors" (503 auth.busy). The boards
 * run with BOARD_LIMITS=0.1, so every number here is a tenth of the production one: 2 failures
 * per name, 30 board-wide, 6 logins per IPv6 /48 a minute, 3 waiting for a hasher.
 */

let addressCounter = 0;
const freshAddress = () => `198.18.${++addressCounter >> 8}.${addressCounter & 255}`;

function login(board: TestBoard, user: string, pass: string, ip = freshAddress()): Promise<Answer> {
  return board.client({ ip }).post('/api/auth/login', { user, pass });
}

/** A login from a fresh address with a solved challenge, as a name under failed-login pressure needs (test/api/pow.test.ts). */
async function solvedLogin(board: TestBoard, user: string, pass: string): Promise<Answer> {
  const client = board.client({ ip: freshAddress() });
  return client.post('/api/auth/login', { user, pass, altcha: await solvedAltcha(client) });
}

describe('the hashing line', () => {
  // The line is what this suite tests: the proof of work Anna's name asks for once it has its
  // failures would turn part of the burst away before the line.
  const t = useBoard({ env: { BOARD_LIMITS: '0.1', BOARD_LOGIN_POW: '0' } });

  test('a burst of logins from many addresses, each within its limit, gets 503 auth.busy with Retry-After once the line is full', async () => {
    await register(t.board, 'Anna');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => login(t.board, i % 2 ? 'Anna' : `Niemand ${i}`, 'falsches Passwort')),
    );
    const busy = answers.filter((a) => a.status === 503);
    assert.ok(busy.length > 0, 'some were refused');
    for (const answer of busy) {
      assertError(answer, 503, 'auth.busy', { exact: true });
      assert.equal(answer.headers.get('retry-after'), '5');
    }
    for (const answer of answers) assert.ok([401, 503].includes(answer.status), answer.text);
    assert.equal((await login(t.board, 'Anna', password)).status, 200, 'once the burst is over, a login works');
  });
});

describe('failed logins per name, per IPv6 site and board-wide', () => {
  // Dozens of failed logins: checked at quickHashes' cost, as the count is what this suite tests.
  const t = useBoard({ env: { BOARD_LIMITS: '0.1' }, start: { passwords: quickHashes } });

  test('once a name has its failures, an address that failed waits (429); a clean address still gets its tries with a solved challenge; unknown names behave the same', async () => {
    await register(t.board, 'Opfer');
    for (const name of ['Opfer', 'Gibt es nicht']) {
      const guesser = freshAddress();
      assertError(await login(t.board, name, 'falsch 1', guesser), 401, 'auth.bad_credentials');
      assertError(await login(t.board, name, 'falsch 2'), 401, 'auth.bad_credentials');
      const held = await login(t.board, name, 'falsch 3', guesser);
      assertError(held, 429, 'rate.limited', { exact: true, note: name });
      assert.ok(Number(held.headers.get('retry-after')) >= 1);
      assertError(await login(t.board, name, 'falsch 4'), 400, 'pow.invalid', { note: name });
      assertError(await solvedLogin(t.board, name, 'falsch 5'), 401, 'auth.bad_credentials', { note: name });
    }
    assert.equal((await solvedLogin(t.board, 'Opfer', password)).status, 200, 'the owner from a clean address');
  });

  test('an IPv6 site (/48) gets 6 logins a minute in all, however many /64s it uses', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 7; i++)
      answers.push((await login(t.board, `Site ${i}`, 'falsch', `2001:db8:77:${i.toString(16)}::1`)).status);
    assert.deepEqual(answers, [401, 401, 401, 401, 401, 401, 429]);
    assert.equal(
      (await login(t.board, 'Site x', 'falsch', '2001:db8:78::1')).status,
      401,
      'the next /48 is another site',
    );
  });

  test('after 30 failures board-wide an address that failed waits, others go on', async () => {
    t.board.clock.advance(601); // the earlier tests' failures are over
    const suspect = freshAddress();
    for (let i = 0; i < 30; i++) await login(t.board, `Flut ${i}`, 'falsch', i === 0 ? suspect : freshAddress());
    assertError(await login(t.board, 'Flut x', 'falsch', suspect), 429, 'rate.limited');
    assert.equal((await login(t.board, 'Opfer', password)).status, 200);
  });
});

describe('the current password of a signed-in account', () => {
  const t = useBoard({ env: { BOARD_LIMITS: '0.1' } });

  test('a wrong one in a password change or an account deletion counts as a failed login of the name: that address then waits, the owner elsewhere gets in with a solved challenge', async () => {
    const thief = freshAddress();
    const stolen = await member(t.board, 'Bestohlen', thief);
    assertError(
      await stolen.post('/api/user/password', {
        pass: 'geraten 1',
        pass1: 'ein neues Passwort',
        pass2: 'ein neues Passwort',
      }),
      403,
      'auth.bad_password',
      { field: 'pass' },
    );
    assertError(await stolen.post('/api/user/delete', { pass1: 'geraten 2' }), 403, 'auth.bad_password', {
      field: 'pass1',
    });
    assertError(await login(t.board, 'Bestohlen', password, thief), 429, 'rate.limited', {
      exact: true,
      note: 'the name has its 2 failures, and this address made them',
    });
    assertError(
      await stolen.post('/api/user/password', {
        pass: password,
        pass1: 'ein neues Passwort',
        pass2: 'ein neues Passwort',
      }),
      429,
      'rate.limited',
      { note: 'held before the hashing work' },
    );
    assert.equal((await solvedLogin(t.board, 'Bestohlen', password)).status, 200, 'the owner from a clean address');
  });
});

describe('BOARD_LIMITS=0', () => {
  const t = useBoard({ env: { BOARD_LIMITS: '0' }, start: { passwords: quickHashes } });

  test("no login brake beyond SPEC's 20 a minute per address", async () => {
    const ip = freshAddress();
    for (let i = 0; i < 20; i++) assert.equal((await login(t.board, 'Niemand', 'falsch', ip)).status, 401);
    assertError(await login(t.board, 'Niemand', 'falsch', ip), 429, 'rate.limited', { note: "SPEC's limit stays" });
    for (let i = 0; i < 8; i++)
      assert.equal((await login(t.board, 'Site', 'falsch', `2001:db8:99:${i}::1`)).status, 401);
  });
});
