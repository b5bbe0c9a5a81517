import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  day,
  member,
  password,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

const firefoxLinux = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const safariIphone =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** Logs the account in once more from a device of its own, with this User-Agent and lifetime. */
async function login(board: TestBoard, username: string, userAgent: string, timeout = day): Promise<Client> {
  const device = visitor(board);
  const answer = await device.post(
    '/api/auth/login',
    { user: username, pass: password, timeout },
    { 'user-agent': userAgent },
  );
  assert.equal(answer.status, 200, answer.text);
  return device;
}

function storedSessions(board: TestBoard, username: string) {
  return board.app.services.db.all<{ token_hash: Buffer; public_id: string }>(
    'SELECT token_hash, public_id FROM sessions WHERE uid = ?',
    uidOf(board, username),
  );
}

describe('GET /api/user/sessions', () => {
  const t = useBoard();

  test('lists the live sessions newest first with a readable device, the calling one marked current', async () => {
    await member(t.board, 'Lena Liste');
    t.board.clock.advance(10);
    const laptop = await login(t.board, 'Lena Liste', firefoxLinux);
    t.board.clock.advance(10);
    const phone = await login(t.board, 'Lena Liste', safariIphone, 3600);
    t.board.clock.advance(10);

    const answer = await laptop.get('/api/user/sessions');
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    const list = answer.body as {
      id: string;
      created_at: number;
      expires: number;
      description: string;
      device: string;
      current: number;
    }[];
    assert.equal(list.length, 3);
    assert.deepEqual(
      list.map((s) => Object.keys(s).sort()),
      Array(3).fill(['created_at', 'current', 'description', 'device', 'expires', 'id']),
    );
    const now = t.board.clock.now();
    assert.deepEqual(
      list.map((s) => s.created_at),
      [now - 10, now - 20, now - 30],
    );
    assert.deepEqual(
      list.map((s) => s.current),
      [0, 1, 0],
    );
    assert.deepEqual(
      list.map((s) => s.description.slice(0, 11)),
      ['Mozilla/5.0', 'Mozilla/5.0', 'node'],
    );
    assert.deepEqual(
      list.slice(0, 2).map((s) => s.device),
      ['Safari auf iPhone', 'Firefox auf Linux'],
    );
    assert.equal(list[0]!.expires, now - 10 + 3600);
    assert.deepEqual(
      (await phone.get('/api/user/sessions')).body.map((s: { current: number }) => s.current),
      [1, 0, 0],
    );
  });

  test('ids are opaque: neither the token nor its hash, unique, and stable between calls', async () => {
    const owner = await member(t.board, 'Otto Opak');
    await login(t.board, 'Otto Opak', firefoxLinux);
    const list = (await owner.get('/api/user/sessions')).body as { id: string }[];
    const stored = storedSessions(t.board, 'Otto Opak');
    const ids = list.map((s) => s.id);
    assert.equal(new Set(ids).size, 2);
    for (const id of ids) {
      assert.match(id, /^[0-9a-f]{32}$/);
      assert.notEqual(id, owner.cookie);
      for (const row of stored) {
        assert.ok(
          !row.token_hash.toString('hex').includes(id) && !row.token_hash.toString('base64url').includes(id),
          'not the hash',
        );
      }
    }
    assert.deepEqual(ids.sort(), stored.map((row) => row.public_id).sort());
    assert.deepEqual((await owner.get('/api/user/sessions')).body.map((s: { id: string }) => s.id).sort(), ids);
  });

  test('expired sessions are left out and another account never appears', async () => {
    const owner = await member(t.board, 'Erna Ablauf');
    await login(t.board, 'Erna Ablauf', firefoxLinux, 120);
    await member(t.board, 'Fremde Person');
    assert.equal((await owner.get('/api/user/sessions')).body.length, 2);
    t.board.clock.advance(121);
    const list = (await owner.get('/api/user/sessions')).body as { current: number }[];
    assert.deepEqual(
      list.map((s) => s.current),
      [1],
    );
  });

  test('a session written without a public id (an old row, a tool) gets a random one from the database', async () => {
    await member(t.board, 'Alte Zeile');
    const db = t.board.app.services.db;
    const uid = uidOf(t.board, 'Alte Zeile');
    for (const fill of [1, 2]) {
      db.run(
        'INSERT INTO sessions (token_hash, uid, created_at, expires, description) VALUES (?, ?, ?, ?, ?)',
        Buffer.alloc(32, fill),
        uid,
        0,
        t.board.clock.now() + day,
        '',
      );
    }
    const ids = storedSessions(t.board, 'Alte Zeile').map((row) => row.public_id);
    assert.equal(new Set(ids).size, 3);
    for (const id of ids) assert.match(id, /^[0-9a-f]{32}$/);
  });

  test('needs a session', async () => {
    assertError(await visitor(t.board).get('/api/user/sessions'), 401, 'auth.required');
  });
});

describe('POST /api/user/sessions/{id}/revoke', () => {
  const t = useBoard();

  async function idOf(client: Client, current: number): Promise<string> {
    const list = (await client.get('/api/user/sessions')).body as { id: string; current: number }[];
    return list.find((s) => s.current === current)!.id;
  }

  test('ends another session of the account; that device is logged out, this one stays', async () => {
    const desk = await member(t.board, 'Rita Ende');
    const phone = await login(t.board, 'Rita Ende', safariIphone);
    const phoneId = await idOf(phone, 1);
    const answer = await desk.post(`/api/user/sessions/${phoneId}/revoke`);
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'ok' });
    assert.equal(answer.headers.getSetCookie().length, 0);
    assertError(await phone.get('/api/user/info'), 401, 'auth.required');
    assert.equal((await desk.get('/api/user/info')).status, 200);
    assertError(await desk.post(`/api/user/sessions/${phoneId}/revoke`), 404, 'session.not_found');
  });

  test('ending the current session logs out and clears the cookie', async () => {
    const desk = await member(t.board, 'Sven Selbst');
    const id = await idOf(desk, 1);
    const answer = await desk.post(`/api/user/sessions/${id}/revoke`);
    assert.equal(answer.status, 200, answer.text);
    const cookie = answer.headers.getSetCookie().find((c) => c.startsWith('session='))!;
    assert.match(cookie, /^session=;/);
    assert.match(cookie, /Max-Age=0/);
    assertError(await desk.get('/api/user/info'), 401, 'auth.required');
  });

  test("an unknown id or another account's answers 404 session.not_found and ends nothing", async () => {
    const mine = await member(t.board, 'Mia Meins');
    const theirs = await member(t.board, 'Tom Fremd');
    const theirId = await idOf(theirs, 1);
    for (const id of [theirId, '0'.repeat(32), 'nonsense', '%20', theirs.cookie]) {
      assertError(await mine.post(`/api/user/sessions/${encodeURIComponent(id)}/revoke`), 404, 'session.not_found', {
        note: id,
      });
    }
    assert.equal((await theirs.get('/api/user/info')).status, 200);
    assert.equal((await mine.get('/api/user/info')).status, 200);
  });

  test('an expired session answers 404 like an unknown one', async () => {
    const desk = await member(t.board, 'Kurt Kurz');
    const brief = await login(t.board, 'Kurt Kurz', firefoxLinux, 120);
    const id = await idOf(brief, 1);
    t.board.clock.advance(121);
    assertError(await desk.post(`/api/user/sessions/${id}/revoke`), 404, 'session.not_found');
  });

  test('needs a session', async () => {
    assertError(await visitor(t.board).post(`/api/user/sessions/${'0'.repeat(32)}/revoke`), 401, 'auth.required');
  });
});

describe('POST /api/user/sessions/revoke-others', () => {
  const t = useBoard();

  test('ends every other live session of the account and answers how many', async () => {
    const desk = await member(t.board, 'Olga Andere');
    const phone = await login(t.board, 'Olga Andere', safariIphone);
    const laptop = await login(t.board, 'Olga Andere', firefoxLinux);
    await login(t.board, 'Olga Andere', firefoxLinux, 120);
    const neighbour = await member(t.board, 'Nachbar');
    t.board.clock.advance(121); // the short one has expired: it was not listed, so it is not counted

    const answer = await desk.post('/api/user/sessions/revoke-others');
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { count: 2 });
    assert.equal(answer.headers.getSetCookie().length, 0);
    assert.equal((await desk.get('/api/user/info')).status, 200);
    assertError(await phone.get('/api/user/info'), 401, 'auth.required');
    assertError(await laptop.get('/api/user/info'), 401, 'auth.required');
    assert.equal((await neighbour.get('/api/user/info')).status, 200);
    assert.deepEqual(await desk.post('/api/user/sessions/revoke-others').then((a) => a.body), { count: 0 });
  });

  test('needs a session', async () => {
    assertError(await visitor(t.board).post('/api/user/sessions/revoke-others'), 401, 'auth.required');
  });
});
