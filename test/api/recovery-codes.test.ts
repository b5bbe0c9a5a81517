import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  assertPasswordAndSessionRequired,
  member,
  passHash,
  password,
  passwordGate,
  resetToken,
  sessionCount,
  uidOf,
  useBoard,
  visitor,
  type Client,
} from '../helpers.ts';

/** docs/API.md "Recovery codes": ten single-use codes, shown once, that set a new password without the operator. */

const newPassword = 'ein ganz neues Passwort';

async function newCodes(client: Client): Promise<string[]> {
  const answer = await client.post('/api/user/recovery-codes', { pass1: password });
  assert.equal(answer.status, 200, answer.text);
  return answer.body.codes;
}

describe('making recovery codes', () => {
  const t = useBoard({ members: ['Anna', 'Bert'] });

  test('after the password: ten codes shown once, stored only as hashes; the count says how many are left', async () => {
    const { Anna } = t.members;
    assert.deepEqual((await Anna.get('/api/user/recovery-codes')).body, { remaining: 0, created_at: 0 });
    const answer = await Anna.post('/api/user/recovery-codes', { pass1: password });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    const codes: string[] = answer.body.codes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) assert.match(code, /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    const count = await Anna.get('/api/user/recovery-codes');
    assertDocumented(count);
    assert.deepEqual(count.body, { remaining: 10, created_at: t.board.clock.now() });
    assert.ok(!JSON.stringify(count.body).includes(codes[0]!));

    const rows = t.board.app.services.db.all<{ code_hash: Buffer }>(
      'SELECT code_hash FROM recovery_codes WHERE uid = ?',
      uidOf(t.board, 'Anna'),
    );
    assert.equal(rows.length, 10);
    const stored = rows.map((row) => row.code_hash.toString('hex')).join(' ');
    for (const code of codes) {
      const plain = code.replaceAll('-', '');
      assert.ok(!stored.includes(Buffer.from(plain).toString('hex')), 'no code in the database');
    }
  });

  test('a new set replaces the old one: an old code no longer works', async () => {
    const { Bert } = t.members;
    const [old] = await newCodes(Bert);
    const fresh = await newCodes(Bert);
    assert.deepEqual((await Bert.get('/api/user/recovery-codes')).body.remaining, 10);
    const device = visitor(t.board);
    assertError(
      await device.post('/api/auth/recover', { user: 'Bert', code: old, pass1: newPassword, pass2: newPassword }),
      401,
      'recovery.invalid',
    );
    assert.equal(
      (await device.post('/api/auth/recover', { user: 'Bert', code: fresh[3], pass1: newPassword, pass2: newPassword }))
        .status,
      200,
    );
  });

  test('without the right password or a session, no codes', async () => {
    const carl = await member(t.board, 'Carl');
    await assertPasswordAndSessionRequired(t.board, carl, '/api/user/recovery-codes', '/api/user/recovery-codes');
    assert.deepEqual((await carl.get('/api/user/recovery-codes')).body.remaining, 0);
  });
});

describe('POST /api/auth/recover', () => {
  const t = useBoard({ members: ['Dora', 'Emil', 'Fritz', 'Gabi', 'Hugo'], moderators: ['Mia'] });

  test('sets the password, uses the code, ends every other session and reset link, and logs in', async () => {
    const { Dora } = t.members;
    const codes = await newCodes(Dora);
    const token = await resetToken(t.board, 'Dora');
    const device = visitor(t.board);
    // Letter case, spaces and dashes do not matter.
    const typed = ` ${codes[0]!.toLowerCase().replaceAll('-', ' ')} `;
    const answer = await device.post('/api/auth/recover', {
      user: 'dora',
      code: typed,
      pass1: newPassword,
      pass2: newPassword,
    });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Dora' });
    assert.match(
      answer.headers.getSetCookie().find((c) => c.startsWith('session='))!,
      /HttpOnly.*Max-Age=86400|Max-Age=86400.*HttpOnly/,
    );
    assert.equal((await device.get('/api/user/info')).body.username, 'Dora');
    assertError(await Dora.get('/api/user/info'), 401, 'auth.required');
    assert.equal(sessionCount(t.board, 'Dora'), 1);
    assertError(await visitor(t.board).post('/api/auth/reset/check', { token }), 404, 'reset.invalid');
    assert.equal((await device.get('/api/user/recovery-codes')).body.remaining, 9);
    assert.equal((await visitor(t.board).post('/api/auth/login', { user: 'Dora', pass: newPassword })).status, 200);
    assertError(
      await visitor(t.board).post('/api/auth/login', { user: 'Dora', pass: password }),
      401,
      'auth.bad_credentials',
    );

    // Used up: the same code again is a wrong code.
    assertError(
      await visitor(t.board).post('/api/auth/recover', {
        user: 'Dora',
        code: codes[0],
        pass1: password,
        pass2: password,
      }),
      401,
      'recovery.invalid',
    );
  });

  test('a wrong code and an unknown name answer alike; bad passwords are refused before the code is looked at', async () => {
    const [code] = await newCodes(t.members.Emil);
    const wrongCode = await visitor(t.board).post('/api/auth/recover', {
      user: 'Emil',
      code: 'AAAA-BBBB-CCCC-DDDD',
      pass1: newPassword,
      pass2: newPassword,
    });
    const unknownName = await visitor(t.board).post('/api/auth/recover', {
      user: 'Niemand',
      code,
      pass1: newPassword,
      pass2: newPassword,
    });
    assertError(wrongCode, 401, 'recovery.invalid');
    assertDocumented(wrongCode);
    assert.equal(wrongCode.text, unknownName.text);
    assert.equal(unknownName.status, 401);
    assertError(
      await visitor(t.board).post('/api/auth/recover', {
        user: 'Emil',
        code: 'kein code',
        pass1: newPassword,
        pass2: newPassword,
      }),
      401,
      'recovery.invalid',
    );

    const short = await visitor(t.board).post('/api/auth/recover', {
      user: 'Emil',
      code,
      pass1: 'kurz',
      pass2: 'kurz',
    });
    assertError(short, 400, 'auth.invalid', 'pass1');
    assertError(
      await visitor(t.board).post('/api/auth/recover', {
        user: 'Emil',
        code,
        pass1: newPassword,
        pass2: 'anders anders',
      }),
      400,
      'auth.invalid',
      'pass2',
    );
    assertError(
      await visitor(t.board).post('/api/auth/recover', { code, pass1: newPassword, pass2: newPassword }),
      400,
      'input.invalid',
      'user',
    );
    assertError(
      await visitor(t.board).post('/api/auth/recover', { user: 'Emil', pass1: newPassword, pass2: newPassword }),
      400,
      'input.invalid',
      'code',
    );
    assert.equal((await t.members.Emil.get('/api/user/recovery-codes')).body.remaining, 10, 'no code was used');
  });

  test('wrong codes count as failed logins of the name: past 20, an address that failed waits', async () => {
    await newCodes(t.members.Fritz);
    const guessers = Array.from({ length: 20 }, () => visitor(t.board));
    for (const guesser of guessers)
      assertError(
        await guesser.post('/api/auth/recover', {
          user: 'Fritz',
          code: 'AAAA-BBBB-CCCC-DDDD',
          pass1: newPassword,
          pass2: newPassword,
        }),
        401,
        'recovery.invalid',
      );
    assertError(
      await guessers[0]!.post('/api/auth/recover', {
        user: 'Fritz',
        code: 'AAAA-BBBB-CCCC-DDDE',
        pass1: newPassword,
        pass2: newPassword,
      }),
      429,
      'rate.limited',
    );
    // One address: SPEC's 20 a minute of the login bucket.
    const one = visitor(t.board);
    for (let i = 0; i < 20; i++)
      await one.post('/api/auth/recover', { user: 'Niemand', code: 'x', pass1: newPassword, pass2: newPassword });
    assertError(await one.post('/api/auth/login', { user: 'Fritz', pass: password }), 429, 'rate.limited');
  });

  test('a banned account gets 403 auth.banned and keeps its code', async () => {
    const [code] = await newCodes(t.members.Gabi);
    assert.equal((await t.members.Mia.post('/api/mod/user/Gabi/ban', { reason: 'Spam' })).status, 200);
    const answer = await visitor(t.board).post('/api/auth/recover', {
      user: 'Gabi',
      code,
      pass1: newPassword,
      pass2: newPassword,
    });
    assertError(answer, 403, 'auth.banned');
    assert.equal(answer.headers.get('set-cookie'), null);
    assert.equal(
      t.board.app.services.db.one<{ n: number }>(
        'SELECT count(*) AS n FROM recovery_codes WHERE uid = ?',
        uidOf(t.board, 'Gabi'),
      )!.n,
      10,
    );
  });

  test('the same code sent twice at once works once', async () => {
    const [code] = await newCodes(t.members.Hugo);
    const tries = await Promise.all(
      ['erstes neues Passwort', 'zweites neues Passwort'].map((pass) =>
        visitor(t.board).post('/api/auth/recover', { user: 'Hugo', code, pass1: pass, pass2: pass }),
      ),
    );
    assert.deepEqual(tries.map((answer) => answer.status).sort(), [200, 401]);
    assert.equal(sessionCount(t.board, 'Hugo'), 1);
  });
});

describe('a recovery in flight', () => {
  const gate = passwordGate();
  const t = useBoard({ start: { passwords: gate.passwords }, members: ['Ines', 'Jonas'], moderators: ['Mia'] });
  afterEach(() => gate.releaseAll());

  test('a second recovery with the same code that commits while the first hashes wins; the first is refused and changes nothing', async () => {
    const [code] = await newCodes(t.members.Ines);
    const held = gate.holdNext('hash');
    const first = visitor(t.board).post('/api/auth/recover', {
      user: 'Ines',
      code,
      pass1: 'das erste Passwort',
      pass2: 'das erste Passwort',
    });
    await held.reachedBy(first); // the code matched; the new password is hashed, nothing written
    const second = await visitor(t.board).post('/api/auth/recover', {
      user: 'Ines',
      code,
      pass1: 'das zweite Passwort',
      pass2: 'das zweite Passwort',
    });
    assert.equal(second.status, 200, second.text);
    const hashAfterSecond = passHash(t.board, 'Ines');
    held.release();
    const answer = await first;
    assertError(answer, 401, 'recovery.invalid');
    assert.equal(answer.headers.get('set-cookie'), null);
    assert.equal(passHash(t.board, 'Ines'), hashAfterSecond, 'the password of the second stays');
    assert.equal(
      (await visitor(t.board).post('/api/auth/login', { user: 'Ines', pass: 'das zweite Passwort' })).status,
      200,
    );
  });

  test('a ban that commits while the new password is hashed refuses the session and undoes the recovery', async () => {
    const [code] = await newCodes(t.members.Jonas);
    const before = passHash(t.board, 'Jonas');
    const held = gate.holdNext('hash');
    const recovering = visitor(t.board).post('/api/auth/recover', {
      user: 'Jonas',
      code,
      pass1: newPassword,
      pass2: newPassword,
    });
    await held.reachedBy(recovering);
    assert.equal((await t.members.Mia.post('/api/mod/user/Jonas/ban', { reason: 'Spam', days: 1 })).status, 200);
    held.release();
    assertError(await recovering, 403, 'auth.banned');
    assert.equal(passHash(t.board, 'Jonas'), before);
    assert.equal(
      t.board.app.services.db.one<{ n: number }>(
        'SELECT count(*) AS n FROM recovery_codes WHERE uid = ?',
        uidOf(t.board, 'Jonas'),
      )!.n,
      10,
      'the code stays unused',
    );
  });
});
