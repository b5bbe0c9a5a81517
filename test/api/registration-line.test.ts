import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { assertError, eventually, password, register, slotGate, useBoard, type Answer } from '../helpers.ts';

/**
 * docs/API.md "Rate limits": a flood of registrations never takes the password-hashing line from
 * members. Registrations hash one at a time (the machine's `registration` slot) and wait in a line
 * of their own; past it they are refused at once, before any hashing. BOARD_LIMITS=0.1: the
 * hashing line holds 3 waiting, the registrations' line 2. A gate inside the hashing slots holds
 * each hash that started while `holding` was on, so the lines fill however fast the machine hashes.
 * Before this rule, 8 registrations took both hashers and the 3 places, and a member's login got
 * 503 auth.busy.
 */

const gate = slotGate();
let addressCounter = 0;
const freshAddress = () => `198.19.${++addressCounter >> 8}.${addressCounter & 255}`;

describe('registrations during a flood', () => {
  const t = useBoard({
    // The surge gate stays out of it (its own tests: registration-surge.test.ts): every account here is open.
    env: { BOARD_LIMITS: '0.1', BOARD_REGISTRATION_SURGE: '0' },
    start: { slots: gate.slots },
    users: ['Mitglied'],
  });
  afterEach(() => gate.releaseAll());

  const registerAs = (user: string): Promise<Answer> =>
    t.board.client({ ip: freshAddress() }).post('/api/auth/newuser', { user, pass1: password, pass2: password });

  test('hold at most their share: the rest are refused at once without hashing, and a member still logs in', async () => {
    const hashedBefore = gate.started('hash');
    gate.holding('hash', true);
    const flood = Array.from({ length: 8 }, (_, i) => registerAs(`Bot ${i}`));
    const answered: Answer[] = [];
    for (const request of flood) void request.then((answer) => answered.push(answer));
    // One registration hashes (held), two wait in the registrations' line, the other five answered.
    await eventually('the flood has settled in the lines', () => {
      const waiting = gate.load('registration').waiting + gate.load('hash').waiting;
      return answered.length + gate.load('hash').running + waiting === flood.length && answered.length > 0;
    });
    gate.holding('hash', false);

    assert.equal(gate.started('hash') - hashedBefore, 1, 'one registration reached a hasher');
    assert.deepEqual(gate.load('registration'), { running: 1, waiting: 2 });
    assert.equal(answered.length, 5);
    for (const answer of answered) {
      assertError(answer, 503, 'auth.busy', { exact: true });
      assert.equal(answer.headers.get('retry-after'), '5');
      assert.match(answer.body.error.message, /registrieren sich sehr viele neue Konten/);
    }

    const login = await t.board
      .client({ ip: freshAddress() })
      .post('/api/auth/login', { user: 'Mitglied', pass: password });
    assert.equal(login.status, 200, `a member logs in while registrations hold their share: ${login.text}`);

    gate.releaseAll();
    const admitted = (await Promise.all(flood)).filter((answer) => answer.status === 201);
    assert.equal(admitted.length, 3, 'the one hashing and the two waiting get in once the line moves');
  });

  test('a password change finds a hasher too: only registrations take the share', async () => {
    const member = await register(t.board, 'Zweites Mitglied', freshAddress());
    assert.equal((await member.post('/api/auth/login', { user: 'Zweites Mitglied', pass: password })).status, 200);
    gate.holding('hash', true);
    const flood = Array.from({ length: 4 }, (_, i) => registerAs(`Welle ${i}`));
    await eventually('the registrations hold their share', () => gate.load('registration').waiting === 2);
    gate.holding('hash', false);
    assertError(await registerAs('Noch einer'), 503, 'auth.busy');
    const change = await member.post('/api/user/password', {
      pass: password,
      pass1: 'ein neues langes Passwort',
      pass2: 'ein neues langes Passwort',
    });
    assert.equal(change.status, 200, `the password change hashes twice beside the held registration: ${change.text}`);
    gate.releaseAll();
    assert.deepEqual((await Promise.all(flood)).map((answer) => answer.status).sort(), [201, 201, 201, 503]);
  });
});

describe('registrations during a flood, with the default limits', () => {
  const t = useBoard({
    env: { BOARD_REGISTRATION_SURGE: '0' },
    start: { slots: gate.slots },
    users: ['Mitglied'],
  });
  afterEach(() => gate.releaseAll());

  test('one registration hashes, 16 wait in their line, the 18th is refused at once; a member logs in', async () => {
    const hashedBefore = gate.started('hash');
    gate.holding('hash', true);
    const flood = Array.from({ length: 18 }, (_, i) =>
      t.board.client({ ip: freshAddress() }).post('/api/auth/newuser', {
        user: `Standard ${i}`,
        pass1: password,
        pass2: password,
      }),
    );
    const answered: Answer[] = [];
    for (const request of flood) void request.then((answer) => answered.push(answer));
    await eventually(
      'the flood has settled in the lines',
      () => gate.load('registration').waiting === 16 && answered.length === 1,
    );
    gate.holding('hash', false);
    assert.equal(gate.started('hash') - hashedBefore, 1, 'one registration reached a hasher');
    assertError(answered[0]!, 503, 'auth.busy', { exact: true });
    assert.match(answered[0]!.body.error.message, /registrieren sich sehr viele neue Konten/);
    const login = await t.board
      .client({ ip: freshAddress() })
      .post('/api/auth/login', { user: 'Mitglied', pass: password });
    assert.equal(login.status, 200, login.text);
    gate.releaseAll();
    const admitted = (await Promise.all(flood)).filter((answer) => answer.status === 201);
    assert.equal(admitted.length, 17);
  });
});
