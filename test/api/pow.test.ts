import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Challenge } from 'altcha-lib';
import { maxUsedChallenges, powChallengeSeconds } from '../../lib/product.ts';
import { powAlgorithm, recommendedPowCost } from '../../lib/registration/pow.ts';
import type { Passwords } from '../../lib/accounts/passwords.ts';
import {
  addPasskey,
  assertDocumented,
  assertError,
  authenticatorFor,
  password,
  passkeySignIn,
  post,
  quickHashes,
  solveAltcha,
  solvedAltcha,
  useBoard,
  visitor,
  type Answer,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/API.md "Proof of work": with BOARD_POW on, registration and anonymous reports need a solved
 * challenge of GET /api/auth/challenge in `altcha`, and by default (BOARD_LOGIN_POW) so does every
 * password login for a name under failed-login pressure: ALTCHA v2, HMAC-signed, 10 minutes, one
 * use; missing or wrong is 400 pow.invalid with error.fields.altcha. Default limits unless a suite
 * says otherwise; the board's clock moves for the expiry and the minute of failed logins.
 */

function registration(board: TestBoard, user: string, altcha?: string) {
  return visitor(board).post('/api/auth/newuser', { user, pass1: password, pass2: password, altcha });
}

function assertPowInvalid(answer: Answer, note: string) {
  assertError(answer, 400, 'pow.invalid', { note });
  assert.deepEqual(Object.keys(answer.body.error.fields), ['altcha'], note);
}

/** A password login for `user` from a fresh address, or from `client` when given. */
function login(
  board: TestBoard,
  user: string,
  pass: string,
  fields: Record<string, string> = {},
  client = visitor(board),
) {
  return client.post('/api/auth/login', { user, pass, ...fields });
}

/** `count` wrong passwords for `user`, each from an address of its own; returns the answers. */
async function guesses(board: TestBoard, user: string, count: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await login(board, user, `geraten ${i}`));
  return answers;
}

describe('proof of work on (BOARD_POW=1)', () => {
  const t = useBoard({ env: { BOARD_POW: '1' }, members: ['Anna'] });

  test('GET /api/auth/registration says pow; a challenge is ALTCHA v2, signed, with the recommended cost and 10 minutes', async () => {
    assert.equal((await visitor(t.board).get('/api/auth/registration')).body.pow, true);
    const answer = await visitor(t.board).get('/api/auth/challenge');
    assert.equal(answer.status, 200);
    assertDocumented(answer);
    const { parameters, signature } = answer.body as Challenge;
    assert.equal(parameters.algorithm, powAlgorithm);
    assert.equal(parameters.expiresAt, t.board.clock.now() + powChallengeSeconds);
    assert.equal(parameters.data?.max, recommendedPowCost);
    assert.match(signature!, /^[0-9a-f]{64}$/);
  });

  test('a registration without a solution, with a wrong one or a forged challenge is 400 pow.invalid; a solved one registers', async () => {
    assertPowInvalid(await registration(t.board, 'Ohne'), 'missing');
    assertPowInvalid(await registration(t.board, 'Ohne', 'kein base64 json'), 'garbage');
    const client = visitor(t.board);
    const challenge = (await client.get('/api/auth/challenge')).body as Challenge;
    const wrong = Buffer.from(
      JSON.stringify({ challenge, solution: { counter: 1, derivedKey: '00'.repeat(32) } }),
    ).toString('base64');
    assertPowInvalid(await registration(t.board, 'Ohne', wrong), 'wrong solution');
    const forged = { ...challenge, parameters: { ...challenge.parameters, data: { max: 1 } } };
    assertPowInvalid(
      await registration(t.board, 'Ohne', await solveAltcha(forged)),
      'parameters changed after signing',
    );
    assert.equal((await registration(t.board, 'Mit Lösung', await solveAltcha(challenge))).status, 201);
  });

  test('a solution is good for one request: a replay answers like a wrong solution', async () => {
    const altcha = await solvedAltcha(visitor(t.board));
    assert.equal((await registration(t.board, 'Einmal', altcha)).status, 201);
    assertPowInvalid(await registration(t.board, 'Zweimal', altcha), 'replay');
    const shared = await solvedAltcha(visitor(t.board));
    const [a, b] = await Promise.all([
      registration(t.board, 'Gleichzeitig A', shared),
      registration(t.board, 'Gleichzeitig B', shared),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [201, 400], 'one solution sent twice at once');
  });

  test("a challenge expires after 10 minutes by the board's clock", async () => {
    const altcha = await solvedAltcha(visitor(t.board));
    t.board.clock.advance(powChallengeSeconds);
    assertPowInvalid(await registration(t.board, 'Zu spät', altcha), 'expired');
    const used = t.board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM used_challenges')!.n;
    assert.ok(used <= maxUsedChallenges);
  });

  test("an anonymous report needs a solution; a member's does not", async () => {
    const pid = await post(t.members.Anna, 'Ein Beitrag');
    const anonymous = visitor(t.board);
    assertPowInvalid(await anonymous.post(`/api/entry/${pid}/report`), 'anonymous report');
    const altcha = await solvedAltcha(anonymous);
    assert.equal((await anonymous.post(`/api/entry/${pid}/report`, { altcha })).status, 200);
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/report`)).status, 200);
  });

  test('a name with 20 failed logins in a minute: every login for it needs a solution, so the owner still gets in', async () => {
    const login = (client = visitor(t.board), fields: Record<string, string> = {}) =>
      client.post('/api/auth/login', { user: 'Anna', pass: password, ...fields });
    for (let i = 0; i < 20; i++)
      assert.equal(
        (await visitor(t.board).post('/api/auth/login', { user: 'Anna', pass: 'falsch geraten' })).status,
        401,
      );
    assertPowInvalid(await login(), 'under pressure, without a solution');
    const owner = visitor(t.board);
    assert.equal((await login(owner, { altcha: await solvedAltcha(owner) })).status, 200);
    t.board.clock.advance(60);
    assert.equal((await login()).status, 200, 'the minute is over: no solution needed');
  });
});

describe('the counter a challenge hides', () => {
  const t = useBoard({ env: { BOARD_POW: '100' } });

  test('is spread over the whole range from 0 to the cost, so no starting point beats another', async () => {
    const cost = 100;
    const counters: number[] = [];
    for (let i = 0; i < 120; i++) {
      const challenge = (await visitor(t.board).get('/api/auth/challenge')).body as Challenge;
      assert.equal(challenge.parameters.data?.max, cost);
      // Solved from 0 up, the first counter that fits is the hidden one (half the key is published).
      const { solution } = JSON.parse(Buffer.from(await solveAltcha(challenge), 'base64').toString());
      counters.push(solution.counter);
    }
    assert.ok(
      counters.every((counter) => counter >= 0 && counter <= cost),
      counters.join(' '),
    );
    // Uniform: about half below the middle (a miss of this band is some 5 standard deviations out).
    const lowerHalf = counters.filter((counter) => counter < cost / 2).length;
    assert.ok(lowerHalf >= 30 && lowerHalf <= 90, `${lowerHalf} of 120 below ${cost / 2}: ${counters.join(' ')}`);
    assert.ok(
      counters.some((counter) => counter < cost / 4),
      `none in the lowest quarter: ${counters.join(' ')}`,
    );
  });
});

describe('proof of work off (the default), the login part on (the default)', () => {
  /** Password checks the board has run: a held login runs none. */
  let checked = 0;
  const counted = (scrypt: Passwords): Passwords => ({
    ...scrypt,
    verify: (...args) => {
      checked++;
      return scrypt.verify(...args);
    },
  });
  const t = useBoard({ members: ['Anna', 'Bert'], start: { passwords: counted } });

  test('registration and anonymous reports need nothing; the registration says pow: false', async () => {
    assert.equal(t.board.config.pow, 0);
    assert.equal((await visitor(t.board).get('/api/auth/registration')).body.pow, false);
    assert.equal((await registration(t.board, 'Frei')).status, 201);
    const pid = await post(t.members.Bert, 'Beitrag');
    assert.equal((await visitor(t.board).post(`/api/entry/${pid}/report`)).status, 200);
  });

  test('150 guesses at one name from fresh addresses: after the 20th in a minute each is held before its password is checked', async () => {
    const before = checked;
    const answers = await guesses(t.board, 'Anna', 150);
    for (const [i, answer] of answers.slice(0, 20).entries())
      assertError(answer, 401, 'auth.bad_credentials', { note: `guess ${i + 1}` });
    for (const [i, answer] of answers.slice(20).entries()) assertPowInvalid(answer, `guess ${i + 21}`);
    assertPowInvalid(await login(t.board, 'Anna', password), 'the right password without a solution');
    assert.equal(checked - before, 20, 'only the first 20 passwords were checked');

    assert.equal((await login(t.board, 'Bert', password)).status, 200, 'another name logs in at once');
    const owner = visitor(t.board);
    const solved = await login(t.board, 'Anna', password, { altcha: await solvedAltcha(owner) }, owner);
    assert.equal(solved.status, 200, `a solved challenge lets the right password in: ${solved.text}`);
    assert.match(solved.headers.get('set-cookie') ?? '', /^session=/);

    t.board.clock.advance(60);
    assert.equal((await login(t.board, 'Anna', password)).status, 200, 'the minute is over: no solution needed');
  });

  test('a passkey sign-in for the name under attack is never asked for proof of work', async () => {
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(t.members.Anna, authenticator)).status, 201);
    await guesses(t.board, 'Anna', 20);
    assertPowInvalid(await login(t.board, 'Anna', password), 'the password login is held');
    const signIn = await passkeySignIn(visitor(t.board), authenticator);
    assert.equal(signIn.status, 200, signIn.text);
    assert.deepEqual(signIn.body, { status: 'ok' });
  });
});

describe('proof of work on, the login part off (BOARD_POW=1, BOARD_LOGIN_POW=0)', () => {
  const t = useBoard({ env: { BOARD_POW: '1', BOARD_LOGIN_POW: '0' }, members: ['Carla'] });

  test('registration still needs a solution; a login for a name under attack does not', async () => {
    assertPowInvalid(await registration(t.board, 'Ohne'), 'registration');
    for (const answer of await guesses(t.board, 'Carla', 25)) assertError(answer, 401, 'auth.bad_credentials');
    assert.equal((await login(t.board, 'Carla', password)).status, 200, 'the right password, no solution');
  });
});

describe("the board's flood of failed logins (BOARD_LIMITS=0.1: 30 a minute)", () => {
  for (const [pow, asked] of [
    ['0', false],
    ['100', true],
  ] as const) {
    describe(`BOARD_POW=${pow}`, () => {
      const t = useBoard({
        env: { BOARD_POW: pow, BOARD_LIMITS: '0.1' },
        members: ['Dora'],
        start: { passwords: quickHashes },
      });

      test(`a login for another name ${asked ? 'needs' : 'does not need'} a solution`, async () => {
        for (let i = 0; i < 30; i++) await guesses(t.board, `Flut ${i}`, 1);
        const answer = await login(t.board, 'Dora', password);
        if (asked) assertPowInvalid(answer, 'the board is flooded');
        else assert.equal(answer.status, 200, answer.text);
      });
    });
  }
});
