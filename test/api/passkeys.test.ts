import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import yauzl from 'yauzl';
import {
  addPasskey,
  assertDocumented,
  assertError,
  assertPasswordAndSessionRequired,
  authenticatorFor,
  member,
  passkeyGate,
  passkeySignIn,
  password,
  resetToken,
  sessionCount,
  signInCredential,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/** docs/API.md "Passkeys": registration, sign-in without a name, the list, deletion, and what each refuses. */

function passkeyRows(board: TestBoard, username: string) {
  return board.app.services.db.all<{
    credential_id: string;
    public_key: Buffer;
    counter: number;
    device_type: string;
    backed_up: number;
    name: string;
    last_used: number;
  }>(
    'SELECT credential_id, public_key, counter, device_type, backed_up, name, last_used FROM passkeys WHERE uid = ?',
    uidOf(board, username),
  );
}

/** account.json of the client's data export. */
async function exportedAccount(board: TestBoard, client: Client) {
  const res = await fetch(`${board.url}/api/user/export`, {
    headers: { cookie: `session=${client.cookie}`, 'x-forwarded-for': client.ip! },
  });
  assert.equal(res.status, 200);
  const zip = await yauzl.fromBufferPromise(Buffer.from(await res.arrayBuffer()), { lazyEntries: true });
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName !== 'account.json') continue;
    const chunks: Buffer[] = [];
    for await (const chunk of await zip.openReadStreamPromise(entry)) chunks.push(chunk as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  }
  throw new Error('no account.json in the export');
}

describe('registering a passkey', () => {
  const t = useBoard({ members: ['Anna', 'Bert', 'Carla', 'Dirk'] });

  test('after the password, options for a discoverable credential of this board; the passkey is stored under its name', async () => {
    const { Anna } = t.members;
    const options = await Anna.post('/api/user/passkeys/options', { pass1: password });
    assert.equal(options.status, 200, options.text);
    assertDocumented(options);
    assert.equal(options.body.rp.id, 'localhost', 'the RP ID is the host of BOARD_ORIGIN');
    assert.equal(options.body.user.name, 'Anna');
    assert.equal(options.body.authenticatorSelection.residentKey, 'required');
    assert.equal(options.body.authenticatorSelection.userVerification, 'preferred');
    assert.deepEqual(options.body.excludeCredentials, []);

    const authenticator = authenticatorFor(t.board);
    const added = await Anna.post('/api/user/passkeys', {
      name: '  Mein Handy ',
      credential: JSON.stringify(authenticator.create(options.body)),
    });
    assert.equal(added.status, 201, added.text);
    assertDocumented(added);
    assert.equal(added.body.name, 'Mein Handy');
    assert.equal(added.body.created_at, t.board.clock.now());
    assert.equal(added.body.last_used, 0);
    assert.equal(added.body.synced, 1);
    assert.equal(added.body.backed_up, 1);

    const list = await Anna.get('/api/user/passkeys');
    assert.equal(list.status, 200);
    assertDocumented(list);
    assert.deepEqual(list.body, [added.body]);
    const [row] = passkeyRows(t.board, 'Anna');
    assert.equal(row!.credential_id, authenticator.credentials[0]!.id.toString('base64url'));
    assert.ok(row!.public_key.length > 60, 'the COSE public key is kept');
    assert.equal(row!.device_type, 'multiDevice');
    assert.equal(row!.backed_up, 1);

    // The next registration excludes it: an authenticator makes no second passkey for the account.
    const next = await Anna.post('/api/user/passkeys/options', { pass1: password });
    assert.deepEqual(
      next.body.excludeCredentials.map((c: { id: string }) => c.id),
      [row!.credential_id],
    );
    assert.equal(next.body.user.id, options.body.user.id, 'one user handle per account');
  });

  test('a wrong or missing password gets no options (a stolen session alone plants no passkey)', async () => {
    await assertPasswordAndSessionRequired(t.board, t.members.Bert, '/api/user/passkeys/options', '/api/user/passkeys');
    assert.equal(
      t.board.app.services.db.one<{ n: number }>(
        'SELECT count(*) AS n FROM webauthn_challenges WHERE uid = ?',
        uidOf(t.board, 'Bert'),
      )!.n,
      0,
    );
  });

  test('refused: another origin, a challenge used before or of another account, a bad name; nothing is stored', async () => {
    const { Carla, Dirk } = t.members;
    const authenticator = authenticatorFor(t.board);
    const options = async () => (await Carla.post('/api/user/passkeys/options', { pass1: password })).body;

    const phished = authenticator.create(await options(), 'http://localhost.evil.example');
    assertError(
      await Carla.post('/api/user/passkeys', { name: 'Handy', credential: JSON.stringify(phished) }),
      400,
      'passkey.registration_failed',
      'credential',
    );
    // The same challenge once more, now with the right origin: used up by the failed try.
    const again = authenticator.create({
      ...(await options()),
      challenge: JSON.parse(Buffer.from(phished.response.clientDataJSON, 'base64url').toString()).challenge,
    });
    assertError(
      await Carla.post('/api/user/passkeys', { name: 'Handy', credential: JSON.stringify(again) }),
      400,
      'passkey.registration_failed',
    );
    // Carla's challenge, sent from Dirk's session.
    const carlas = JSON.stringify(authenticator.create(await options()));
    assertError(
      await Dirk.post('/api/user/passkeys', { name: 'Handy', credential: carlas }),
      400,
      'passkey.registration_failed',
    );
    // A response replayed after it was accepted.
    const good = JSON.stringify(authenticator.create(await options()));
    assert.equal((await Carla.post('/api/user/passkeys', { name: 'Laptop', credential: good })).status, 201);
    assertError(
      await Carla.post('/api/user/passkeys', { name: 'Laptop 2', credential: good }),
      400,
      'passkey.registration_failed',
    );

    for (const name of ['', '   ', 'x'.repeat(65), 'Zeile\nUmbruch']) {
      const credential = JSON.stringify(authenticator.create(await options()));
      assertError(await Carla.post('/api/user/passkeys', { name, credential }), 400, 'input.invalid', {
        field: 'name',
        note: JSON.stringify(name),
      });
    }
    assertError(
      await Carla.post('/api/user/passkeys', { name: 'Handy', credential: '{"kaputt":' }),
      400,
      'input.invalid',
      'credential',
    );
    assert.deepEqual(
      passkeyRows(t.board, 'Carla').map((row) => row.name),
      ['Laptop'],
    );
    assert.equal(passkeyRows(t.board, 'Dirk').length, 0);
  });

  test('a credential registered already (to this account or another) answers 409 passkey.exists', async () => {
    const { Dirk } = t.members;
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(Dirk, authenticator)).status, 201);
    const taken = authenticator.credentials[0]!.id;
    for (const client of [Dirk, t.members.Carla]) {
      const options = await client.post('/api/user/passkeys/options', { pass1: password });
      const again = authenticator.create(options.body, undefined, taken);
      const answer = await client.post('/api/user/passkeys', { name: 'Nochmal', credential: JSON.stringify(again) });
      assertError(answer, 409, 'passkey.exists', 'credential');
      assertDocumented(answer);
    }
    assert.equal(passkeyRows(t.board, 'Dirk').length, 1);
  });

  test('at most 20 passkeys an account: the 21st answers 409 passkey.limit', async () => {
    const dora = await member(t.board, 'Dora');
    const authenticator = authenticatorFor(t.board);
    // Twenty stored straight away (the login bucket allows 20 password checks a minute per address).
    const uid = uidOf(t.board, 'Dora');
    for (let i = 1; i <= 20; i++)
      t.board.app.services.db.run(
        `INSERT INTO passkeys (id, uid, credential_id, public_key, counter, device_type, backed_up, name, created_at)
         VALUES (?, ?, ?, x'00', 0, 'singleDevice', 0, ?, ?)`,
        String(i).padStart(32, '0'),
        uid,
        `credential-${i}`,
        `Schlüssel ${i}`,
        t.board.clock.now(),
      );
    assertError(await addPasskey(dora, authenticator, 'Noch einer'), 409, 'passkey.limit');
    assert.equal((await dora.get('/api/user/passkeys')).body.length, 20);
  });
});

describe('signing in with a passkey', () => {
  const t = useBoard({ members: ['Emma', 'Fred', 'Gina'] });

  test('no name typed: the options name no account, the answer is a login with its cookie and timeout', async () => {
    const authenticator = authenticatorFor(t.board, { countSignatures: true });
    assert.equal((await addPasskey(t.members.Emma, authenticator)).status, 201);

    const device = visitor(t.board);
    const options = await device.post('/api/auth/passkey/options');
    assert.equal(options.status, 200, options.text);
    assertDocumented(options);
    assert.equal(options.body.rpId, 'localhost');
    assert.equal(options.body.userVerification, 'preferred');
    assert.deepEqual(options.body.allowCredentials ?? [], [], 'discoverable: no allow list');
    const signIn = await device.post('/api/auth/passkey/login', {
      credential: JSON.stringify(authenticator.get(options.body)),
      timeout: 3600,
    });
    assert.equal(signIn.status, 200, signIn.text);
    assertDocumented(signIn);
    assert.deepEqual(signIn.body, { status: 'ok' });
    const cookie = signIn.headers.getSetCookie().find((c) => c.startsWith('session='))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Max-Age=3600/);
    const info = await device.get('/api/user/info');
    assert.equal(info.body.username, 'Emma');
    assert.equal(info.body.last_login, t.board.clock.now());
    const [row] = passkeyRows(t.board, 'Emma');
    assert.equal(row!.counter, 1, 'the signature counter is stored');
    assert.equal(row!.last_used, t.board.clock.now());
    assert.equal((await t.members.Emma.get('/api/user/passkeys')).body[0].last_used, t.board.clock.now());

    // Already logged in: as login, no second session.
    const again = await device.post('/api/auth/passkey/login', {
      credential: await signInCredential(device, authenticator),
    });
    assert.deepEqual(again.body, { status: 'already_logged_in' });
    assertError(
      await visitor(t.board).post('/api/auth/passkey/login', {
        credential: await signInCredential(device, authenticator),
        timeout: 5,
      }),
      400,
      'input.invalid',
      'timeout',
    );
  });

  test('a replayed response, an expired challenge, another origin, a foreign or forged passkey: 401 passkey.failed, no session', async () => {
    const { Fred } = t.members;
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(Fred, authenticator)).status, 201);
    const before = sessionCount(t.board, 'Fred');

    const first = visitor(t.board);
    const credential = await signInCredential(first, authenticator);
    assert.equal((await first.post('/api/auth/passkey/login', { credential })).status, 200);
    const replay = await visitor(t.board).post('/api/auth/passkey/login', { credential });
    assertError(replay, 401, 'passkey.failed');
    assertDocumented(replay);

    const late = visitor(t.board);
    const lateCredential = await signInCredential(late, authenticator);
    t.board.clock.advance(301); // the challenge lived 5 minutes
    assertError(await late.post('/api/auth/passkey/login', { credential: lateCredential }), 401, 'passkey.failed');

    const phished = visitor(t.board);
    assertError(
      await phished.post('/api/auth/passkey/login', {
        credential: await signInCredential(phished, authenticator, { origin: 'https://board.evil.example' }),
      }),
      401,
      'passkey.failed',
    );

    const stranger = visitor(t.board);
    const unregistered = authenticatorFor(t.board);
    unregistered.create((await Fred.post('/api/user/passkeys/options', { pass1: password })).body); // made, never stored
    assertError(
      await stranger.post('/api/auth/passkey/login', { credential: await signInCredential(stranger, unregistered) }),
      401,
      'passkey.failed',
    );

    const forger = visitor(t.board);
    const forged = JSON.parse(await signInCredential(forger, authenticator));
    forged.response.signature = Buffer.from(forged.response.signature, 'base64url').reverse().toString('base64url');
    assertError(
      await forger.post('/api/auth/passkey/login', { credential: JSON.stringify(forged) }),
      401,
      'passkey.failed',
    );

    assertError(await visitor(t.board).post('/api/auth/passkey/login', {}), 400, 'input.invalid', 'credential');
    assertError(
      await visitor(t.board).post('/api/auth/passkey/login', { credential: '[]' }),
      400,
      'input.invalid',
      'credential',
    );
    assert.equal(sessionCount(t.board, 'Fred'), before + 1, 'only the first sign-in made a session');
  });

  test('a signature counter that goes back (a cloned authenticator) is refused', async () => {
    const { Gina } = t.members;
    const authenticator = authenticatorFor(t.board, { countSignatures: true });
    assert.equal((await addPasskey(Gina, authenticator)).status, 201);
    assert.equal((await passkeySignIn(visitor(t.board), authenticator)).status, 200);
    assert.equal((await passkeySignIn(visitor(t.board), authenticator)).status, 200);
    authenticator.credentials[0]!.counter = 0; // the clone signs with the counter it was copied at, +1
    assertError(await passkeySignIn(visitor(t.board), authenticator), 401, 'passkey.failed');
    assert.equal(passkeyRows(t.board, 'Gina')[0]!.counter, 2);
  });
});

describe('a passkey sign-in in flight', () => {
  const gate = passkeyGate();
  const t = useBoard({
    start: { webauthn: gate.webauthn },
    members: ['Hans', 'Ida', 'Jan', 'Kim'],
    moderators: ['Mia'],
  });
  afterEach(() => gate.releaseAll());

  /** Starts a sign-in with `username`'s passkey and holds it after the signature was checked; `meanwhile` runs then. */
  async function signInWhile(username: 'Hans' | 'Ida' | 'Jan' | 'Kim', meanwhile: () => Promise<void>) {
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(t.members[username], authenticator)).status, 201);
    const device = visitor(t.board);
    const credential = await signInCredential(device, authenticator);
    const held = gate.holdNext('verifyAuthentication');
    const signingIn = device.post('/api/auth/passkey/login', { credential });
    await held.reachedBy(signingIn); // the signature is good; no session written yet
    await meanwhile();
    held.release();
    return { answer: await signingIn, device, authenticator };
  }

  test('a ban that commits meanwhile wins: 403 auth.banned, no session row', async () => {
    const { answer } = await signInWhile('Hans', async () => {
      const banned = await t.members.Mia.post('/api/mod/user/Hans/ban', { reason: 'Spam' });
      assert.equal(banned.status, 200, banned.text);
    });
    assertError(answer, 403, 'auth.banned');
    assertDocumented(answer);
    assert.equal(answer.headers.get('set-cookie'), null);
    assert.equal(sessionCount(t.board, 'Hans'), 0);
  });

  test('a password reset that commits meanwhile ends it: 401 passkey.failed; the reset session is the only one', async () => {
    let resetDevice = visitor(t.board);
    const { answer } = await signInWhile('Ida', async () => {
      const token = await resetToken(t.board, 'Ida');
      resetDevice = visitor(t.board);
      const reset = await resetDevice.post('/api/auth/reset', {
        token,
        pass1: 'ein neues Passwort',
        pass2: 'ein neues Passwort',
      });
      assert.equal(reset.status, 200, reset.text);
    });
    assertError(answer, 401, 'passkey.failed');
    assert.equal(sessionCount(t.board, 'Ida'), 1);
    assert.equal((await resetDevice.get('/api/user/info')).body.username, 'Ida');
  });

  test('the passkey deleted meanwhile: 401 passkey.failed, no session', async () => {
    const before = sessionCount(t.board, 'Jan');
    const { answer } = await signInWhile('Jan', async () => {
      const [key] = (await t.members.Jan.get('/api/user/passkeys')).body;
      const deleted = await t.members.Jan.post(`/api/user/passkeys/${key.id}/delete`, { pass1: password });
      assert.equal(deleted.status, 200, deleted.text);
    });
    assertError(answer, 401, 'passkey.failed');
    assert.equal(sessionCount(t.board, 'Jan'), before);
  });

  test('the account deleted meanwhile: 401 passkey.failed, and its passkeys are gone with it', async () => {
    const uid = uidOf(t.board, 'Kim');
    const { answer } = await signInWhile('Kim', async () => {
      const deleted = await t.members.Kim.post('/api/user/delete', { pass1: password });
      assert.equal(deleted.status, 200, deleted.text);
    });
    assertError(answer, 401, 'passkey.failed');
    assert.equal(
      t.board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM passkeys WHERE uid = ?', uid)!.n,
      0,
    );
  });
});

describe('what ends passkey sessions and passkeys', () => {
  const t = useBoard({ members: ['Lena', 'Max', 'Nora', 'Olaf', 'Paul'] });

  test('a password reset ends the sessions a passkey made; the passkey itself still signs in', async () => {
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(t.members.Lena, authenticator)).status, 201);
    const phone = visitor(t.board);
    assert.equal((await passkeySignIn(phone, authenticator)).status, 200);
    const token = await resetToken(t.board, 'Lena');
    const reset = await visitor(t.board).post('/api/auth/reset', {
      token,
      pass1: 'ein neues Passwort',
      pass2: 'ein neues Passwort',
    });
    assert.equal(reset.status, 200, reset.text);
    assertError(await phone.get('/api/user/info'), 401, 'auth.required');
    assert.equal((await passkeySignIn(visitor(t.board), authenticator)).status, 200);
  });

  test('account deletion ends passkey sessions and deletes the passkeys: signing in with one fails', async () => {
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(t.members.Max, authenticator)).status, 201);
    const phone = visitor(t.board);
    assert.equal((await passkeySignIn(phone, authenticator)).status, 200);
    const uid = uidOf(t.board, 'Max');
    assert.equal((await t.members.Max.post('/api/user/delete', { pass1: password })).status, 200);
    assertError(await phone.get('/api/user/info'), 401, 'auth.required');
    assertError(await passkeySignIn(visitor(t.board), authenticator), 401, 'passkey.failed');
    const { db } = t.board.app.services;
    assert.equal(db.one<{ n: number }>('SELECT count(*) AS n FROM passkeys WHERE uid = ?', uid)!.n, 0);
    assert.equal(db.one<{ n: number }>('SELECT count(*) AS n FROM webauthn_users WHERE uid = ?', uid)!.n, 0);
  });

  test("deleting a passkey needs the password or a passkey of the account; another account's id is unknown", async () => {
    const { Nora, Olaf } = t.members;
    const phone = authenticatorFor(t.board);
    const laptop = authenticatorFor(t.board);
    assert.equal((await addPasskey(Nora, phone, 'Handy')).status, 201);
    assert.equal((await addPasskey(Nora, laptop, 'Laptop')).status, 201);
    const listed: { id: string; name: string }[] = (await Nora.get('/api/user/passkeys')).body;
    const handy = listed.find((key) => key.name === 'Handy')!;
    const laptopKey = listed.find((key) => key.name === 'Laptop')!;

    const wrong = await Nora.post(`/api/user/passkeys/${handy.id}/delete`, { pass1: 'falsch falsch' });
    assertError(wrong, 403, 'auth.bad_password', 'pass1');
    assertDocumented(wrong);
    assertError(
      await Olaf.post(`/api/user/passkeys/${handy.id}/delete`, { pass1: password }),
      404,
      'passkey.not_found',
    );
    assertError(await Nora.post('/api/user/passkeys/nichtda/delete', { pass1: password }), 404, 'passkey.not_found');
    // Olaf's passkey cannot confirm for Nora.
    const olafs = authenticatorFor(t.board);
    assert.equal((await addPasskey(Olaf, olafs)).status, 201);
    assertError(
      await Nora.post(`/api/user/passkeys/${handy.id}/delete`, { passkey: await signInCredential(Nora, olafs) }),
      403,
      'auth.bad_passkey',
      'passkey',
    );

    // The laptop's passkey confirms deleting the phone's.
    const deleted = await Nora.post(`/api/user/passkeys/${handy.id}/delete`, {
      passkey: await signInCredential(Nora, laptop),
    });
    assert.equal(deleted.status, 200, deleted.text);
    assertDocumented(deleted);
    assert.deepEqual(deleted.body, { status: 'deleted' });
    assertError(await passkeySignIn(visitor(t.board), phone), 401, 'passkey.failed');
    // The password confirms deleting the last one.
    assert.equal((await Nora.post(`/api/user/passkeys/${laptopKey.id}/delete`, { pass1: password })).status, 200);
    assert.deepEqual((await Nora.get('/api/user/passkeys')).body, []);
  });

  test('account deletion may be confirmed with a passkey instead of the password', async () => {
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(t.members.Paul, authenticator)).status, 201);
    const answer = await t.members.Paul.post('/api/user/delete', {
      passkey: await signInCredential(t.members.Paul, authenticator),
    });
    assert.equal(answer.status, 200, answer.text);
    assertError(
      await visitor(t.board).post('/api/auth/login', { user: 'Paul', pass: password }),
      401,
      'auth.bad_credentials',
    );
  });
});

describe('passkey attempts and the login limits', () => {
  const t = useBoard({ members: ['Rita'] });

  test('options and sign-ins count in the per-address login bucket (20 a minute)', async () => {
    const device = visitor(t.board);
    for (let i = 0; i < 20; i++) assert.equal((await device.post('/api/auth/passkey/options')).status, 200);
    const limited = await device.post('/api/auth/passkey/login', { credential: '{}' });
    assertError(limited, 429, 'rate.limited');
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });

  test("failed passkey sign-ins count against the account's name: past 20, an address that failed waits", async () => {
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(t.members.Rita, authenticator)).status, 201);
    const guessers = Array.from({ length: 20 }, () => visitor(t.board));
    for (const guesser of guessers) {
      const forged = JSON.parse(await signInCredential(guesser, authenticator));
      forged.response.signature = Buffer.from(forged.response.signature, 'base64url').reverse().toString('base64url');
      assertError(
        await guesser.post('/api/auth/passkey/login', { credential: JSON.stringify(forged) }),
        401,
        'passkey.failed',
      );
    }
    // A guesser is held even with a good signature; an address that never failed gets in.
    assertError(await passkeySignIn(guessers[0]!, authenticator), 429, 'rate.limited');
    assert.equal((await passkeySignIn(visitor(t.board), authenticator)).status, 200);
  });
});

describe('the passkey data in the export, and the browser library', () => {
  const t = useBoard({ members: ['Sara'] });

  test('the export lists passkey names and times, never a key or credential id', async () => {
    const authenticator = authenticatorFor(t.board);
    assert.equal((await addPasskey(t.members.Sara, authenticator, 'Sicherheitsschlüssel')).status, 201);
    const account = await exportedAccount(t.board, t.members.Sara);
    assert.deepEqual(
      account.passkeys.map((p: Record<string, unknown>) => Object.keys(p).sort()),
      [['created_at', 'last_used', 'name']],
    );
    assert.equal(account.passkeys[0].name, 'Sicherheitsschlüssel');
    const row = passkeyRows(t.board, 'Sara')[0]!;
    const json = JSON.stringify(account);
    assert.ok(!json.includes(row.credential_id) && !json.includes(row.public_key.toString('base64url')));
  });

  test("@simplewebauthn/browser is served from the board's origin; its type files are not", async () => {
    const module = await visitor(t.board).get('/static/vendor/simplewebauthn/index.js');
    assert.equal(module.status, 200);
    assert.match(module.headers.get('content-type')!, /^text\/javascript/);
    assert.match(module.text, /startAuthentication/);
    const nested = await visitor(t.board).get('/static/vendor/simplewebauthn/methods/startRegistration.js');
    assert.equal(nested.status, 200);
    assert.equal((await visitor(t.board).get('/static/vendor/simplewebauthn/index.d.ts')).status, 404);
    assert.equal((await visitor(t.board).get('/static/vendor/simplewebauthn/../package.json')).status, 404);
  });
});
