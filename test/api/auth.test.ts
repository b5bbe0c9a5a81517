import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  day,
  fullCostHashes,
  password,
  register,
  resetToken,
  runAdmin,
  runAdminHere,
  useBoard,
  visitor,
  type Answer,
  type Client,
  type TestBoard,
} from '../helpers.ts';

function sessionCookie(answer: Answer): string | undefined {
  return answer.headers.getSetCookie().find((c) => c.startsWith('session='));
}

/** Cookie attributes by lower-case name; flags map to ''. */
function cookieAttributes(cookie: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const part of cookie.split(';').slice(1)) {
    const [name, ...value] = part.trim().split('=');
    attributes.set(name!.toLowerCase(), value.join('='));
  }
  return attributes;
}

function sessionsOf(
  board: TestBoard,
  username: string,
): { uid: number; created_at: number; expires: number; description: string }[] {
  return board.app.services.db.all(
    'SELECT s.uid, s.created_at, s.expires, s.description FROM sessions s JOIN users u USING (uid) WHERE u.username = ?',
    username,
  );
}

function userRow(
  board: TestBoard,
  username: string,
): { uid: number; last_login: number; pass_hash: string } | undefined {
  return board.app.services.db.one('SELECT uid, last_login, pass_hash FROM users WHERE username = ?', username);
}

async function loggedIn(board: TestBoard, user: string, pass = password): Promise<Client> {
  const client = visitor(board);
  const answer = await client.post('/api/auth/login', { user, pass });
  assert.equal(answer.status, 200, answer.text);
  return client;
}

describe('login', () => {
  const t = useBoard({ users: ['Lena'] });

  test('right name and password answer ok and set an HttpOnly, SameSite=Lax session cookie for one day', async () => {
    const client = visitor(t.board);
    const answer = await client.post('/api/auth/login', { user: 'Lena', pass: password });
    assert.equal(answer.status, 200);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'ok' });
    const cookie = sessionCookie(answer);
    assert.ok(cookie, 'a session cookie is set');
    assert.match(cookie, /^session=[A-Za-z0-9_-]{43};/);
    const attributes = cookieAttributes(cookie);
    assert.equal(attributes.get('httponly'), '');
    assert.equal(attributes.get('samesite'), 'Lax');
    assert.equal(attributes.get('path'), '/');
    assert.equal(attributes.get('max-age'), String(day));
    assert.equal(attributes.has('secure'), false, 'no Secure flag on a plain-http origin');
    const info = await client.get('/api/auth/sessioninfo');
    assert.equal(info.status, 200);
    assert.equal(info.body.expires - info.body.created_at, day);
  });

  test('the username is accepted in any letter case', async () => {
    for (const user of ['lena', 'LENA', 'lEnA']) {
      const answer = await visitor(t.board).post('/api/auth/login', { user, pass: password });
      assert.equal(answer.status, 200, `${user}: ${answer.text}`);
    }
  });

  test('timeout sets the cookie lifetime and the session expiry, from 60 seconds to one year', async () => {
    for (const timeout of [60, 3600, 31_536_000]) {
      const client = visitor(t.board);
      const answer = await client.post('/api/auth/login', { user: 'Lena', pass: password, timeout });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(cookieAttributes(sessionCookie(answer)!).get('max-age'), String(timeout));
      const info = await client.get('/api/auth/sessioninfo');
      assert.equal(info.body.expires - info.body.created_at, timeout);
    }
  });

  test('a timeout below a minute, above a year or not a whole number answers 400 input.invalid for timeout', async () => {
    for (const timeout of ['59', '31536001', 'abc', '1.5', '-60', '0', '1e3', ' 60']) {
      const client = visitor(t.board);
      const answer = await client.post('/api/auth/login', { user: 'Lena', pass: password, timeout });
      assertError(answer, 400, 'input.invalid', { field: 'timeout', note: `timeout ${timeout}` });
      assert.equal(sessionCookie(answer), undefined);
    }
  });

  test('logging in again with a valid cookie answers already_logged_in and creates no new session', async () => {
    const client = await loggedIn(t.board, 'Lena');
    const before = sessionsOf(t.board, 'Lena').length;
    const again = await client.post('/api/auth/login', { user: 'Lena', pass: password });
    assert.equal(again.status, 200);
    assertDocumented(again);
    assert.deepEqual(again.body, { status: 'already_logged_in' });
    assert.equal(sessionCookie(again), undefined);
    assert.equal(sessionsOf(t.board, 'Lena').length, before);
  });

  test('an unknown user and a wrong password both answer 401 auth.bad_credentials with the same body', async () => {
    const unknown = await visitor(t.board).post('/api/auth/login', { user: 'Nobody', pass: password });
    const wrong = await visitor(t.board).post('/api/auth/login', { user: 'Lena', pass: 'wrong password!' });
    assertError(unknown, 401, 'auth.bad_credentials');
    assert.equal(wrong.status, 401);
    assert.equal(unknown.text, wrong.text);
    assert.equal(sessionCookie(unknown), undefined);
    assert.equal(sessionCookie(wrong), undefined);
  });

  test('a missing name or password answers 400 for that field', async () => {
    const noUser = await visitor(t.board).post('/api/auth/login', { pass: password });
    assert.equal(noUser.status, 400);
    assert.equal(noUser.body.error.field, 'user');
    const noPass = await visitor(t.board).post('/api/auth/login', { user: 'Lena' });
    assert.equal(noPass.status, 400);
    assert.equal(noPass.body.error.field, 'pass');
  });

  test('a login sets last_login to the current time', async () => {
    t.board.clock.advance(120);
    await loggedIn(t.board, 'Lena');
    assert.equal(userRow(t.board, 'Lena')!.last_login, t.board.clock.now());
  });

  test('the session cookie is found among other cookies', async () => {
    const client = await loggedIn(t.board, 'Lena');
    const answer = await client.get('/api/auth/sessioninfo');
    assert.equal(answer.status, 200);
    const token = client.cookie;
    client.cookie = '';
    const mixed = await client.get('/api/auth/sessioninfo', { cookie: `theme=dark; session=${token}; lang=de` });
    assert.equal(mixed.status, 200);
  });

  test('a login whose session cannot be stored answers 500, sets no cookie and leaves last_login alone', async () => {
    await register(t.board, 'Unlucky Uwe');
    t.board.app.services.db.setFault((sql) =>
      sql.startsWith('INSERT INTO sessions') ? new Error('database or disk is full') : undefined,
    );
    let answer: Answer;
    try {
      answer = await visitor(t.board).post('/api/auth/login', { user: 'Unlucky Uwe', pass: password });
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
    assertError(answer, 500, 'internal');
    assert.equal(sessionCookie(answer), undefined);
    assert.equal(userRow(t.board, 'Unlucky Uwe')!.last_login, 0);
  });

  test('a cookie that is not a live session counts as logged out', async () => {
    const client = visitor(t.board);
    client.cookie = 'A'.repeat(43);
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 401);
    const answer = await client.post('/api/auth/login', { user: 'Lena', pass: password });
    assert.deepEqual(answer.body, { status: 'ok' });
  });
});

describe('login on an https origin', () => {
  const t = useBoard({ env: { BOARD_ORIGIN: 'https://board.example' }, users: ['Secure Sam'] });

  test('the session cookie carries the Secure flag, and so does the cleared cookie at logout', async () => {
    const client = t.board.client();
    const login = await client.post('/api/auth/login', { user: 'Secure Sam', pass: password });
    assert.equal(login.status, 200);
    assert.equal(cookieAttributes(sessionCookie(login)!).get('secure'), '');
    const logout = await client.post('/api/auth/logout');
    assert.equal(cookieAttributes(sessionCookie(logout)!).get('secure'), '');
  });
});

describe('registration', () => {
  const t = useBoard({ start: { passwords: fullCostHashes } }); // the stored hash names BOARD_SCRYPT_LOGN

  async function newUser(user: string, pass1 = password, pass2 = pass1): Promise<Answer> {
    return visitor(t.board).post('/api/auth/newuser', { user, pass1, pass2 });
  }

  test('a new user answers 201 with the name and sets no cookie; last_login stays 0', async () => {
    const answer = await newUser('Mira');
    assert.equal(answer.status, 201);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Mira' });
    assert.equal(answer.headers.getSetCookie().length, 0);
    const row = userRow(t.board, 'Mira')!;
    assert.equal(row.last_login, 0);
    assert.match(row.pass_hash, /^\$scrypt\$ln=14,r=8,p=1\$/);
    assert.equal(sessionsOf(t.board, 'Mira').length, 0);
  });

  test('every field error is reported at once in error.fields with code auth.invalid', async () => {
    const answer = await newUser('x!', 'short', 'different');
    assertError(answer, 400, 'auth.invalid');
    assert.deepEqual(Object.keys(answer.body.error.fields).sort(), ['pass1', 'pass2', 'user']);
    for (const message of Object.values(answer.body.error.fields))
      assert.ok(typeof message === 'string' && message.length > 0);
  });

  test('an empty form reports the name and the password', async () => {
    const answer = await visitor(t.board).post('/api/auth/newuser');
    assert.equal(answer.status, 400);
    assert.deepEqual(Object.keys(answer.body.error.fields).sort(), ['pass1', 'user']);
  });

  test('a password of 9 characters is refused and one of 10 accepted; passwords must match', async () => {
    const short = await newUser('Nine Chars', '123456789');
    assert.deepEqual(Object.keys(short.body.error.fields), ['pass1']);
    const mismatch = await newUser('Mismatch', password, `${password}!`);
    assert.deepEqual(Object.keys(mismatch.body.error.fields), ['pass2']);
    assert.equal((await newUser('Ten Chars', '1234567890')).status, 201);
  });

  test('password length counts code points, not UTF-16 units', async () => {
    const nine = await newUser('Emoji Nine', '😀'.repeat(9));
    assert.equal(nine.status, 400, '9 emoji are 18 UTF-16 units but 9 characters');
    assert.deepEqual(Object.keys(nine.body.error.fields), ['pass1']);
    assert.equal((await newUser('Emoji Ten', '😀'.repeat(10))).status, 201);
    assert.equal(
      (await visitor(t.board).post('/api/auth/login', { user: 'Emoji Ten', pass: '😀'.repeat(10) })).status,
      200,
    );
  });

  test('names are NFC-normalised, trimmed and have inner whitespace collapsed', async () => {
    const decomposed = await newUser('  Ju\u0308rgen \t  der   Zweite ');
    assert.equal(decomposed.status, 201, decomposed.text);
    assert.equal(decomposed.body.username, 'Jürgen der Zweite');
    assert.ok(userRow(t.board, 'Jürgen der Zweite'), 'stored in normal form');
    const again = await newUser('Jürgen der Zweite');
    assert.equal(again.status, 409);
  });

  test('letters of any script, marks, digits, dot, underscore, space and hyphen are allowed', async () => {
    for (const name of ['Jürgen', 'Zoë_99', 'a.b-c d', 'Ωμέγα', '東京都', 'ٱلْعَرَبِيَّة', 'x٣٤', '𝒜𝒜𝒜']) {
      const answer = await newUser(name);
      assert.equal(answer.status, 201, `${name}: ${answer.text}`);
      assert.equal(answer.body.username, name);
    }
  });

  test('3 to 32 code points: astral letters count once', async () => {
    assert.equal(
      (await newUser('𝒜'.repeat(32))).status,
      201,
      '32 astral letters are 64 UTF-16 units but 32 code points',
    );
    assert.equal((await newUser('b'.repeat(32))).status, 201);
    assert.equal((await newUser('abc')).status, 201);
    for (const name of ['ab', '  ab  ', 'c'.repeat(33), '𝒜'.repeat(33), '']) {
      const answer = await newUser(name);
      assert.equal(answer.status, 400, `${JSON.stringify(name)}: ${answer.text}`);
      assert.ok(answer.body.error.fields.user);
    }
  });

  test('other characters are refused', async () => {
    for (const name of [
      'bad!name',
      'a<b>c',
      'x@y.z',
      'tab/slash',
      'emoji😀',
      'zero\u200Bwidth',
      'semi;colon',
      "quo'te",
    ]) {
      const answer = await newUser(name);
      assertError(answer, 400, 'auth.invalid', { note: name });
      assert.deepEqual(Object.keys(answer.body.error.fields), ['user']);
    }
  });

  test('a taken name answers 409 user.name_taken in any letter case, non-ASCII included', async () => {
    assert.equal((await newUser('ärger')).status, 201);
    for (const name of ['ärger', 'ÄRGER', 'Ärger']) {
      const answer = await newUser(name);
      assertError(answer, 409, 'user.name_taken', { note: name });
    }
    assert.equal(
      t.board.app.services.db.one<{ n: number }>("SELECT count(*) AS n FROM users WHERE username_key = 'ärger'")!.n,
      1,
    );
  });

  test('a taken name with an invalid password answers 400, not 409', async () => {
    await newUser('Taken Tom');
    const answer = await newUser('TAKEN TOM', 'short');
    assert.equal(answer.status, 400);
    assert.deepEqual(Object.keys(answer.body.error.fields), ['pass1']);
  });

  test('the users counter follows registrations', async () => {
    const count = () =>
      t.board.app.services.db.one<{ value: number }>("SELECT value FROM counters WHERE name = 'users'")!.value;
    const before = count();
    await newUser('Counted One');
    await newUser('counted one');
    assert.equal(count(), before + 1);
  });
});

describe('logout, session info and expiry', () => {
  const t = useBoard({ users: ['Otto'] });

  test('logout removes the session row and clears the cookie with Max-Age=0', async () => {
    const client = await loggedIn(t.board, 'Otto');
    const other = await loggedIn(t.board, 'Otto');
    assert.equal(sessionsOf(t.board, 'Otto').length, 2);
    const answer = await client.post('/api/auth/logout');
    assert.equal(answer.status, 200);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'ok' });
    const cookie = sessionCookie(answer)!;
    assert.match(cookie, /^session=;/);
    assert.equal(cookieAttributes(cookie).get('max-age'), '0');
    assert.equal(cookieAttributes(cookie).get('path'), '/');
    assert.equal(sessionsOf(t.board, 'Otto').length, 1, 'only this session ends');
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 401);
    assert.equal((await other.get('/api/auth/sessioninfo')).status, 200);
  });

  test('a logged-out cookie replayed later is no session', async () => {
    const client = await loggedIn(t.board, 'Otto');
    const token = client.cookie;
    await client.post('/api/auth/logout');
    client.cookie = token;
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 401);
  });

  test('logout without a session answers 200 ok and clears the cookie', async () => {
    const answer = await visitor(t.board).post('/api/auth/logout');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { status: 'ok' });
    assert.equal(cookieAttributes(sessionCookie(answer)!).get('max-age'), '0');
  });

  test('sessioninfo without a session answers 401 auth.required', async () => {
    const answer = await visitor(t.board).get('/api/auth/sessioninfo');
    assertError(answer, 401, 'auth.required');
  });

  test('sessioninfo shows uid, created_at, expires and the User-Agent cut to 200 characters', async () => {
    const client = visitor(t.board);
    const agent = `Mozilla/5.0 ${'x'.repeat(300)}`;
    await client.post('/api/auth/login', { user: 'Otto', pass: password, timeout: 3600 }, { 'user-agent': agent });
    const info = await client.get('/api/auth/sessioninfo');
    assert.equal(info.status, 200);
    assertDocumented(info);
    assert.deepEqual(Object.keys(info.body).sort(), ['created_at', 'description', 'expires', 'uid']);
    assert.equal(info.body.uid, userRow(t.board, 'Otto')!.uid);
    assert.equal(info.body.created_at, t.board.clock.now());
    assert.equal(info.body.expires, t.board.clock.now() + 3600);
    assert.equal(info.body.description, agent.slice(0, 200));
  });

  test('the session cookie value is not stored; only its hash is', async () => {
    const client = await loggedIn(t.board, 'Otto');
    const rows = t.board.app.services.db.all<{ token_hash: Buffer }>('SELECT token_hash FROM sessions');
    for (const row of rows) assert.ok(!row.token_hash.toString('latin1').includes(client.cookie));
    assert.equal(
      t.board.app.services.db.one('SELECT 1 AS x FROM sessions WHERE token_hash = ?', client.cookie),
      undefined,
    );
  });

  test('a session stops working once its expiry has passed', async () => {
    const client = visitor(t.board);
    await client.post('/api/auth/login', { user: 'Otto', pass: password, timeout: 60 });
    t.board.clock.advance(59);
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 200);
    t.board.clock.advance(1);
    const answer = await client.get('/api/auth/sessioninfo');
    assertError(answer, 401, 'auth.required');
    assert.equal((await client.get('/api/user/info')).status, 401);
    const again = await client.post('/api/auth/login', { user: 'Otto', pass: password });
    assert.deepEqual(again.body, { status: 'ok' }, 'an expired session does not count as logged in');
  });
});

describe('password reset links', () => {
  const t = useBoard({ users: ['Rita', 'Sven'] });

  const check = (token: string) => visitor(t.board).post('/api/auth/reset/check', { token });

  test('the admin CLI prints <origin>/reset#<token>; the token is stored only as a hash', async () => {
    const run = await runAdmin(t.board, ['reset-link', 'Rita']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, new RegExp(`^${t.board.config.origin}/reset#[A-Za-z0-9_-]{43}\\n$`));
    const token = run.stdout.trim().split('#')[1]!;
    const rows = t.board.app.services.db.all<{ token_hash: Buffer; expires: number; created_at: number }>(
      'SELECT token_hash, created_at, expires FROM reset_links',
    );
    assert.equal(rows.length, 1);
    assert.ok(!rows[0]!.token_hash.toString('latin1').includes(token));
    assert.equal(rows[0]!.expires - rows[0]!.created_at, 72 * 3600);
  });

  test('a valid link answers reset/check with the username', async () => {
    const token = await resetToken(t.board, 'rita');
    const answer = await check(token);
    assert.equal(answer.status, 200);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Rita' });
  });

  test('unknown, malformed or missing tokens answer 404 reset.invalid on both endpoints', async () => {
    for (const token of ['A'.repeat(43), 'nonsense', '']) {
      const checked = await check(token);
      assertError(checked, 404, 'reset.invalid');
      const reset = await visitor(t.board).post('/api/auth/reset', { token, pass1: password, pass2: password });
      assertError(reset, 404, 'reset.invalid');
    }
  });

  test('bad new passwords answer 400 auth.invalid naming the field and leave the link valid', async () => {
    const token = await resetToken(t.board, 'Rita');
    const short = await visitor(t.board).post('/api/auth/reset', { token, pass1: 'short', pass2: 'short' });
    assertError(short, 400, 'auth.invalid', 'pass1');
    assert.equal(short.body.error.fields, undefined);
    const mismatch = await visitor(t.board).post('/api/auth/reset', {
      token,
      pass1: password,
      pass2: 'something else',
    });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.error.field, 'pass2');
    assert.equal(sessionCookie(mismatch), undefined);
    assert.equal((await check(token)).status, 200);
  });

  test('a reset sets the password, logs in, ends every old session and uses up the link', async () => {
    const first = await loggedIn(t.board, 'Sven');
    const second = await loggedIn(t.board, 'Sven');
    const bystander = await loggedIn(t.board, 'Rita');
    const token = await resetToken(t.board, 'Sven');
    t.board.clock.advance(300);
    const newPassword = 'a brand new secret';

    const resetter = visitor(t.board);
    const answer = await resetter.post('/api/auth/reset', { token, pass1: newPassword, pass2: newPassword });
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { username: 'Sven' });
    const cookie = sessionCookie(answer)!;
    assert.equal(cookieAttributes(cookie).get('httponly'), '');
    assert.equal(cookieAttributes(cookie).get('max-age'), String(day));

    assert.equal((await first.get('/api/auth/sessioninfo')).status, 401);
    assert.equal((await second.get('/api/auth/sessioninfo')).status, 401);
    assert.equal((await bystander.get('/api/auth/sessioninfo')).status, 200, "another user's session survives");
    const info = await resetter.get('/api/auth/sessioninfo');
    assert.equal(info.status, 200);
    assert.equal(info.body.uid, userRow(t.board, 'Sven')!.uid);
    assert.equal(sessionsOf(t.board, 'Sven').length, 1);
    assert.equal(userRow(t.board, 'Sven')!.last_login, t.board.clock.now());

    assert.equal((await visitor(t.board).post('/api/auth/login', { user: 'Sven', pass: password })).status, 401);
    assert.equal((await visitor(t.board).post('/api/auth/login', { user: 'Sven', pass: newPassword })).status, 200);

    for (const path of ['/api/auth/reset/check', '/api/auth/reset']) {
      const used = await visitor(t.board).post(path, { token, pass1: password, pass2: password });
      assertError(used, 404, 'reset.invalid', { note: path });
    }
  });

  test('a reset that fails half-way changes nothing: old password, old sessions and the link stay', async () => {
    await register(t.board, 'Half Way');
    const old = await loggedIn(t.board, 'Half Way');
    const hashBefore = userRow(t.board, 'Half Way')!.pass_hash;
    const token = await resetToken(t.board, 'Half Way');
    t.board.app.services.db.setFault((sql) =>
      sql.startsWith('INSERT INTO sessions') ? new Error('database or disk is full') : undefined,
    );
    let answer: Answer;
    try {
      answer = await visitor(t.board).post('/api/auth/reset', {
        token,
        pass1: 'a brand new secret',
        pass2: 'a brand new secret',
      });
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
    assert.equal(answer.status, 500);
    assert.equal(sessionCookie(answer), undefined);
    assert.equal(userRow(t.board, 'Half Way')!.pass_hash, hashBefore);
    assert.equal((await old.get('/api/auth/sessioninfo')).status, 200);
    assert.equal((await check(token)).status, 200);
  });

  test('a newer link supersedes the older one', async () => {
    const older = await resetToken(t.board, 'Rita');
    const newer = await resetToken(t.board, 'Rita');
    assert.equal((await check(older)).status, 404);
    const refused = await visitor(t.board).post('/api/auth/reset', { token: older, pass1: password, pass2: password });
    assertError(refused, 404, 'reset.invalid');
    assert.equal((await check(newer)).status, 200);
  });
});

describe('password reset link expiry', () => {
  const t = useBoard({ users: ['Edda'] });

  test('a link works for 72 hours and then answers 404 reset.invalid on both endpoints', async () => {
    const token = await resetToken(t.board, 'Edda');
    const { created_at } = t.board.app.services.db.one<{ created_at: number }>('SELECT created_at FROM reset_links')!;
    t.board.clock.set(created_at + 72 * 3600 - 1);
    assert.equal((await t.board.client().post('/api/auth/reset/check', { token })).status, 200);
    t.board.clock.set(created_at + 72 * 3600 + 1);
    const checked = await t.board.client().post('/api/auth/reset/check', { token });
    assertError(checked, 404, 'reset.invalid');
    const reset = await t.board.client().post('/api/auth/reset', { token, pass1: password, pass2: password });
    assertError(reset, 404, 'reset.invalid');
    assert.equal(sessionCookie(reset), undefined);
  });
});

describe('admin CLI', () => {
  // Argument errors and help run in this process (runAdminHere): they open no board; the real program
  // runs for the unknown user, the bad setting and the reset links above.
  const t = useBoard({ users: ['Ada'] });

  test('reset-link for an unknown user prints a message on stderr and exits 1', async () => {
    const run = await runAdmin(t.board, ['reset-link', 'Nobody Here']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /Nobody Here/);
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM reset_links'), 0);
  });

  test('reset-link without a username exits 2 with the usage on stderr', async () => {
    const run = await runAdminHere(t.board, ['reset-link']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /reset-link <username>/);
  });

  test('an unknown command exits 2 with one error line and a hint where the usage is (not the whole usage)', async () => {
    const run = await runAdminHere(t.board, ['frobnicate']);
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'board-admin: unknown command "frobnicate"\nsee: board-admin help\n');
    assert.equal((await runAdminHere(t.board, [])).code, 2);
  });

  test('a bad setting exits 1 with the message and no stack trace', async () => {
    const run = await runAdmin(t.board, ['reset-link', 'Ada'], { BOARD_ORIGIN: 'not a url' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /BOARD_ORIGIN/);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
  });

  test('help prints the usage and exits 0', async () => {
    const run = await runAdminHere(t.board, ['help']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /reset-link <username>/);
    assert.equal(run.stderr, '');
  });
});

describe('rate limits', () => {
  const t = useBoard();

  test('the 21st login request in a minute from one address answers 429 rate.limited with Retry-After', async () => {
    const client = t.board.client({ ip: '203.0.113.7' });
    for (let i = 1; i <= 20; i++) {
      const answer = await client.post('/api/auth/login', { user: 'Nobody', pass: '' });
      assert.equal(answer.status, 400, `request ${i} is still allowed`);
    }
    const limited = await client.post('/api/auth/login', { user: 'Nobody', pass: password });
    assertError(limited, 429, 'rate.limited');
    const retry = limited.headers.get('retry-after');
    assert.match(retry ?? '', /^\d+$/);
    assert.ok(Number(retry) > 0 && Number(retry) <= 60);

    assert.equal(
      (await t.board.client({ ip: '203.0.113.8' }).post('/api/auth/login')).status,
      400,
      'another address has its own bucket',
    );
    assert.equal((await client.post('/api/auth/newuser')).status, 400, 'registration has its own bucket');
    assert.equal((await client.post('/api/auth/reset/check')).status, 404, 'reset has its own bucket');

    t.board.clock.advance(60);
    assert.equal((await client.post('/api/auth/login')).status, 400, 'a minute later the address may try again');
  });

  test('registration allows 20 requests a minute per address', async () => {
    const client = t.board.client({ ip: '203.0.113.20' });
    for (let i = 0; i < 20; i++) assert.equal((await client.post('/api/auth/newuser')).status, 400);
    assert.equal((await client.post('/api/auth/newuser')).status, 429);
  });

  test('reset/check and reset share one bucket', async () => {
    const client = t.board.client({ ip: '203.0.113.30' });
    for (let i = 0; i < 10; i++) {
      assert.equal((await client.post('/api/auth/reset/check')).status, 404);
      assert.equal((await client.post('/api/auth/reset')).status, 404);
    }
    const limited = await client.post('/api/auth/reset', { token: 'x' });
    assertError(limited, 429, 'rate.limited');
    assert.equal((await client.post('/api/auth/reset/check')).status, 429);
  });
});
