import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { createEntry } from '../../lib/entries/entries.ts';
import {
  assertDocumented,
  assertError,
  imageFixture,
  member as registerMember,
  post,
  password,
  rawRequest,
  useBoard,
  type Answer,
  type TestBoard,
} from '../helpers.ts';

const urlencoded = { 'content-type': 'application/x-www-form-urlencoded' };

/** Sends bytes on a bare socket and returns everything the server answers until it closes. */
function rawSocket(board: TestBoard, bytes: string): Promise<string> {
  const { port } = new URL(board.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer within 10 s')));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    // Connection: close in the request makes the server end the socket after its answer.
    socket.write(bytes);
  });
}

describe('routing and errors', () => {
  const t = useBoard();

  test('an unknown /api path answers 404 api.not_found in JSON, for any method', async () => {
    for (const [method, path] of [
      ['GET', '/api/nope'],
      ['POST', '/api/nope'],
      ['GET', '/api'],
      ['GET', '/api/'],
      ['GET', '/api/health/'],
      ['PUT', '/api/auth/nothing'],
    ] as const) {
      const answer = await t.board.client().send(method, path, undefined);
      assertError(answer, 404, 'api.not_found', { exact: true, note: `${method} ${path}` });
    }
  });

  test('a known path with the wrong method answers 405 api.method_not_allowed with Allow', async () => {
    const get = await t.board.client().get('/api/auth/login');
    assertError(get, 405, 'api.method_not_allowed', { exact: true });
    assert.equal(get.headers.get('allow'), 'POST');
    for (const method of ['POST', 'DELETE', 'PUT', 'PATCH']) {
      const answer = await t.board.client().send(method, '/api/health', undefined);
      assertError(answer, 405, 'api.method_not_allowed', { exact: true, note: method });
      assert.equal(answer.headers.get('allow'), 'GET, HEAD');
    }
  });

  test('HEAD works wherever GET does', async () => {
    const answer = await rawRequest(t.board.url, 'HEAD', '/api/health');
    assert.equal(answer.status, 200);
    assert.equal(answer.text, '');
    assert.equal((await rawRequest(t.board.url, 'HEAD', '/')).status, 200);
  });

  test('health answers 200 {status: ok}', async () => {
    const answer = await t.board.client().get('/api/health');
    assert.equal(answer.status, 200);
    assertDocumented(answer);
    assert.deepEqual(answer.body, { status: 'ok' });
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  test('every error the foundation answers has the same shape and a German message', async () => {
    const c = t.board.client();
    await t.board.client().signUp('Shape Tester');
    const checks: [Promise<Answer>, number, string][] = [
      [c.get('/api/user/info'), 401, 'auth.required'],
      [c.post('/api/auth/login', { user: 'Nobody', pass: password }), 401, 'auth.bad_credentials'],
      [c.post('/api/auth/login', { user: 'x', pass: password, timeout: 'abc' }), 400, 'input.invalid'],
      [c.post('/api/auth/newuser', { user: 'x' }), 400, 'auth.invalid'],
      [c.post('/api/auth/newuser', { user: 'shape tester', pass1: password, pass2: password }), 409, 'user.name_taken'],
      [c.post('/api/auth/reset/check', { token: 'nope' }), 404, 'reset.invalid'],
      [c.get('/api/u/nobody/info'), 404, 'user.not_found'],
      [c.send('POST', '/api/auth/login', 'hello', { 'content-type': 'text/plain' }), 415, 'input.unsupported_type'],
      [c.post('/api/auth/login', {}, { origin: 'http://evil.example' }), 403, 'csrf.bad_origin'],
    ];
    for (const [pending, status, code] of checks) {
      assertError(await pending, status, code, { exact: true, note: code });
    }
  });
});

describe('request bodies', () => {
  const t = useBoard();

  test('a non-empty text/plain or JSON body answers 415 input.unsupported_type', async () => {
    for (const [type, body] of [
      ['text/plain', 'user=a&pass=b'],
      ['application/json', '{"user":"a","pass":"b"}'],
      ['', 'user=a'],
    ] as const) {
      const answer = await rawRequest(
        t.board.url,
        'POST',
        '/api/auth/newuser',
        type ? { 'content-type': type } : {},
        body,
      );
      assertError(answer, 415, 'input.unsupported_type', { exact: true, note: type || 'no type' });
    }
  });

  test('endpoints that take no fields still refuse a body of another type: logout, delete, bump', async () => {
    const member = await registerMember(t.board, 'Ohne Felder');
    const pid = await post(member, 'Ein Eintrag ohne Felder.');
    for (const path of [`/api/entry/${pid}/bump`, `/api/entry/${pid}/delete`, '/api/auth/logout']) {
      const answer = await member.send('POST', path, 'x=1', { 'content-type': 'text/plain' });
      assertError(answer, 415, 'input.unsupported_type', { note: path });
    }
    assert.notEqual((await member.get('/api/auth/whoami')).body.uid, 0, 'the refused logout left the session');
  });

  test('an empty POST body is an empty form whatever its content type', async () => {
    for (const type of ['application/json', 'text/plain', 'multipart/form-data', 'application/x-www-form-urlencoded']) {
      const answer = await rawRequest(t.board.url, 'POST', '/api/auth/newuser', {
        'content-type': type,
        'content-length': '0',
      });
      assertError(answer, 400, 'auth.invalid', { note: type });
    }
    const noLength = await rawRequest(t.board.url, 'POST', '/api/auth/login', { 'content-type': 'application/json' });
    assert.equal(noLength.status, 400);
    assert.equal(JSON.parse(noLength.text).error.field, 'user');
  });

  test('every POST endpoint takes multipart as well as urlencoded', async () => {
    const client = t.board.client();
    const created = await client.postMultipart('/api/auth/newuser', {
      user: 'Multi Part',
      pass1: password,
      pass2: password,
    });
    assert.equal(created.status, 201, created.text);
    const login = await client.postMultipart('/api/auth/login', { user: 'Multi Part', pass: password });
    assert.equal(login.status, 200, login.text);
    assert.equal((await client.postMultipart('/api/user/rename', { user: 'Multi Part Two' })).status, 200);
  });

  test('a urlencoded body of up to 64 KiB is read; one byte more answers 413 input.too_large', async () => {
    const fits = `user=${'a'.repeat(64 * 1024 - 5)}`;
    const ok = await rawRequest(t.board.url, 'POST', '/api/auth/newuser', urlencoded, fits);
    assertError(ok, 400, 'auth.invalid', { note: 'read and validated' });
    const answer = await rawRequest(t.board.url, 'POST', '/api/auth/newuser', urlencoded, `${fits}a`);
    assertError(answer, 413, 'input.too_large', { exact: true });
  });

  test('a chunked urlencoded body over 64 KiB answers 413 too, not a dropped connection', async () => {
    const body = `user=${'a'.repeat(100 * 1024)}`;
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const head = `POST /api/auth/newuser HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
    const answer = await rawSocket(t.board, head + chunked);
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /"code":"input\.too_large"/);
  });

  test('the first value of a repeated field counts', async () => {
    await t.board.client().post('/api/auth/newuser', { user: 'First Value', pass1: password, pass2: password });
    const answer = await rawRequest(
      t.board.url,
      'POST',
      '/api/auth/login',
      urlencoded,
      `user=First+Value&pass=${encodeURIComponent(password)}&pass=wrong`,
    );
    assert.equal(answer.status, 200, answer.text);
  });
});

describe('headers on every kind of answer', () => {
  const t = useBoard();
  const mediaPath = 'a/0123456789abcdef0123456789abcdef.png';
  before(() => {
    mkdirSync(join(t.board.config.mediaDir, 'a'), { recursive: true });
    writeFileSync(join(t.board.config.mediaDir, mediaPath), Buffer.from('89504e470d0a1a0a', 'hex'));
  });

  test('X-Content-Type-Options: nosniff on API answers, errors, pages and files', async () => {
    for (const path of [
      '/api/health',
      '/api/nope',
      '/api/user/info',
      '/',
      '/login',
      '/no/such/page',
      `/static/media/${mediaPath}`,
      '/static/media/missing.png',
      '/static/app.js',
    ]) {
      const answer = await t.board.client().get(path);
      assertDocumented(answer);
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', path);
    }
  });

  test('pages answer HTML with a Content-Security-Policy that allows only the board itself', async () => {
    for (const [path, status] of [
      ['/', 200],
      ['/reset', 200],
      ['/login', 200],
      ['/register', 200],
      ['/settings', 200],
      ['/stats', 200],
      ['/mod', 200],
      ['/modlog', 200],
      ['/no/such/page', 404],
      ['/static/media/missing.png', 404],
    ] as const) {
      const answer = await t.board.client().get(path);
      assert.equal(answer.status, status, path);
      assertDocumented(answer);
      assert.match(answer.headers.get('content-type')!, /^text\/html/, path);
      assert.match(answer.text, /<html/i, path);
      const csp = answer.headers.get('content-security-policy') ?? '';
      for (const directive of [
        "default-src 'self'",
        "img-src 'self' data: blob:",
        "object-src 'none'",
        "frame-ancestors 'none'",
      ]) {
        assert.ok(csp.split(/;\s*/).includes(directive), `${path}: ${directive} in ${csp}`);
      }
    }
  });

  test('a media file is served with its image type', async () => {
    const answer = await rawRequest(t.board.url, 'GET', `/static/media/${mediaPath}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'image/png');
    assert.equal(answer.headers['content-length'], '8');
  });

  test('a file the browser has is answered 304 without a body; a changed file is sent again', async () => {
    const visitor = t.board.client();
    for (const path of ['/static/app.js', `/static/media/${mediaPath}`, '/sw.js']) {
      const first = await visitor.get(path);
      assert.equal(first.status, 200, path);
      const etag = first.headers.get('etag')!;
      assert.match(etag, /^"[0-9a-z]+-[0-9a-z]+"$/, path);
      const again = await visitor.get(path, { 'if-none-match': etag });
      assertDocumented(again);
      assert.equal(again.status, 304, path);
      assert.equal(again.text, '', path);
      assert.equal(again.headers.get('etag'), etag, path);
      assert.equal(again.headers.get('cache-control'), first.headers.get('cache-control'), path);
      const since = await visitor.get(path, { 'if-modified-since': first.headers.get('last-modified')! });
      assert.equal(since.status, 304, `${path} by its date`);
      assert.equal((await visitor.get(path, { 'if-none-match': '"anders"' })).status, 200, `${path}, another copy`);
    }
    // A file changed since (a new deploy, a replaced image) has another ETag: the browser gets it whole.
    const file = join(t.board.config.mediaDir, mediaPath);
    const before = await visitor.get(`/static/media/${mediaPath}`);
    utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const changed = await visitor.get(`/static/media/${mediaPath}`, { 'if-none-match': before.headers.get('etag')! });
    assert.equal(changed.status, 200);
    assert.equal(changed.headers.get('content-length'), '8');
    assert.notEqual(changed.headers.get('etag'), before.headers.get('etag'));
  });

  test('API answers are never cached', async () => {
    for (const path of ['/api/health', '/api/nope', '/api/user/info']) {
      assert.equal((await t.board.client().get(path)).headers.get('cache-control'), 'no-store', path);
    }
  });
});

describe('pages', () => {
  const t = useBoard({ members: ['Page Owner'] });

  test('a user page answers 200 for a known name in any letter case and 404 for an unknown one', async () => {
    for (const [path, status] of [
      ['/u/Page%20Owner', 200],
      ['/u/page%20owner', 200],
      ['/u/Nobody', 404],
      ['/u/%', 404],
    ] as const) {
      const answer = await rawRequest(t.board.url, 'GET', path);
      assert.equal(answer.status, status, path);
      assert.match(String(answer.headers['content-type']), /^text\/html/, path);
      assert.ok(answer.headers['content-security-policy'], path);
    }
  });

  test('an entry page of an unknown or malformed id answers the HTML page with 404', async () => {
    for (const path of ['/e/1', '/e/0', '/e/abc', '/e/-1', '/e/99999999999999999999']) {
      const answer = await rawRequest(t.board.url, 'GET', path);
      assert.equal(answer.status, 404, path);
      assert.match(String(answer.headers['content-type']), /^text\/html/, path);
    }
  });
});

describe('cross-site request forgery guard', () => {
  const t = useBoard({ env: { BOARD_ORIGIN: 'https://board.example' } });
  let host: string;
  before(() => {
    host = new URL(t.board.url).host;
  });

  const logout = (headers: Record<string, string>) => rawRequest(t.board.url, 'POST', '/api/auth/logout', headers);

  test('a POST from a foreign Origin answers 403 csrf.bad_origin', async () => {
    for (const origin of [
      'http://evil.example',
      'https://board.example.evil.example',
      `http://${host}.evil.example`,
      'https://board.example:8443',
      'http://board.example',
    ]) {
      const answer = await logout({ host, origin });
      assertError(answer, 403, 'csrf.bad_origin', { exact: true, note: origin });
      assert.equal(answer.headers['set-cookie'], undefined, 'a refused request changes no cookie');
    }
  });

  test('Origin: null and an unparsable Origin are foreign', async () => {
    for (const origin of ['null', 'not a url', '', '://']) {
      const answer = await logout({ host, origin });
      assert.equal(answer.status, 403, JSON.stringify(origin));
    }
  });

  test('the configured BOARD_ORIGIN is allowed', async () => {
    assert.equal((await logout({ host, origin: 'https://board.example' })).status, 200);
  });

  test("an Origin whose host equals the request's Host is allowed, whatever the scheme", async () => {
    assert.equal((await logout({ host, origin: `http://${host}` })).status, 200);
    assert.equal((await logout({ host, origin: `https://${host}` })).status, 200, 'behind a TLS proxy');
    assert.equal((await logout({ host: 'proxy.example', origin: 'https://proxy.example' })).status, 200);
    assert.equal(
      (await logout({ host: 'Proxy.Example', origin: 'https://proxy.example' })).status,
      200,
      'host names ignore case',
    );
  });

  test('a POST without Origin is allowed (curl)', async () => {
    assert.equal((await logout({ host })).status, 200);
  });

  test('GET and HEAD with a foreign Origin are allowed', async () => {
    assert.equal((await rawRequest(t.board.url, 'GET', '/api/health', { origin: 'http://evil.example' })).status, 200);
    assert.equal((await rawRequest(t.board.url, 'HEAD', '/api/health', { origin: 'http://evil.example' })).status, 200);
  });

  test('the guard applies to every POST, before the rate limit and the session check', async () => {
    const client = t.board.client();
    const answer = await client.post('/api/user/rename', { user: 'Whoever' }, { origin: 'http://evil.example' });
    assertError(answer, 403, 'csrf.bad_origin');
  });
});

describe('static files never leave their folders', () => {
  const t = useBoard();
  // A real JPEG under a name the board writes: only such a file is served from media/ (issue 28).
  const real = 'e/0123456789abcdef0123456789abcdef.jpg';
  let jpeg: Buffer;
  before(async () => {
    jpeg = await imageFixture();
    mkdirSync(join(t.board.config.mediaDir, 'e'), { recursive: true });
    writeFileSync(join(t.board.config.mediaDir, real), jpeg);
    writeFileSync(join(t.board.config.dataDir, 'secret.txt'), 'TOPSECRET');
    // An entry image is served only while a live entry owns it.
    createEntry(
      t.board.app.services.db,
      { uid: 0, content: '', filepath: real, replyTo: 0, link: '' },
      t.board.clock.now(),
    );
  });

  const attempts = [
    '/static/../package.json',
    '/static/%2e%2e/%2e%2e/package.json',
    '/static/%2E%2E/%2E%2E/package.json',
    '/static/..%2f..%2fpackage.json',
    '/static/media/..%2f..%2fboard.db',
    '/static/media/..%2fsecret.txt',
    '/static/media/%2e%2e/secret.txt',
    '/static/media/.%2e/secret.txt',
    '/static/media/e/../../secret.txt',
    '/static/media/..\\secret.txt',
    '/static/media/..%5csecret.txt',
    '/static/media/..%5c..%5cboard.db',
    '/static/media/%00',
    `/static/media/${real}%00.png`,
    '/static/media/%252e%252e/secret.txt',
    '/static/media/%252e%252e%252fsecret.txt',
    '/static/media/%c0%ae%c0%ae/secret.txt',
    '/static/media/e/%2e%2e/%2e%2e/secret.txt',
    '/static/media//etc/passwd',
    '/static/media/.hidden',
    '/static/media/',
    '/static/media',
    '//etc/passwd',
    '/static//etc/passwd',
  ];

  test('traversal attempts answer 404 and never the file', async () => {
    for (const path of attempts) {
      const answer = await rawRequest(t.board.url, 'GET', path);
      assert.equal(answer.status, 404, `${path}: ${answer.status}`);
      assert.doesNotMatch(answer.text, /TOPSECRET|SQLite format|"name": "board"|root:/, path);
    }
  });

  test('the same attempts on a bare socket answer 404 too', async () => {
    for (const path of [
      '/static/../package.json',
      '/static/media/../../secret.txt',
      '/static/media/..%2f..%2fboard.db',
    ]) {
      const answer = await rawSocket(t.board, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 404 /, path);
      assert.doesNotMatch(answer, /TOPSECRET|SQLite format|"name": "board"/, path);
    }
  });

  test('an existing media file is served', async () => {
    const answer = await rawRequest(t.board.url, 'GET', `/static/media/${real}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.text, jpeg.toString('utf8'));
    assert.equal(answer.headers['content-type'], 'image/jpeg');
  });
});

describe('database failures and the log', () => {
  const t = useBoard();

  test('health and logout answer 500 internal in JSON while the database fails, and recover', async () => {
    const client = await t.board.client().signUp('Unlucky');
    t.board.app.services.db.setFault(() => new Error('disk I/O error'));
    try {
      const health = await t.board.client().get('/api/health');
      assertError(health, 500, 'internal', { exact: true });
      const logout = await client.post('/api/auth/logout');
      assertError(logout, 500, 'internal', { exact: true });
      assert.deepEqual(logout.headers.getSetCookie(), [], 'a failed logout does not pretend to have logged out');
      assert.equal((await client.get('/api/user/info')).status, 500, 'a session lookup that fails is not a 401');
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
    assert.deepEqual((await t.board.client().get('/api/health')).body, { status: 'ok' });
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 200, 'the session survived the failed logout');
    assert.equal((await client.post('/api/auth/logout')).status, 200);
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 401);
  });

  test("a failure's stack goes to the log and never into the answer", async () => {
    t.board.logs.length = 0;
    t.board.app.services.db.setFault(() => new Error('disk I/O error at sector 42'));
    let answer: Answer;
    try {
      answer = await t.board.client().get('/api/health');
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
    assert.equal(answer.status, 500);
    assert.doesNotMatch(answer.text, /sector 42|disk I\/O|\bat \S+\.ts|\.ts:\d+/);
    const logged = t.board.logs.join('\n');
    assert.match(logged, /disk I\/O error at sector 42/);
    assert.match(logged, /\n\s+at .+/, 'the stack trace is in the log');
  });

  test('the access log has method, path, status and duration, and never the client address', async () => {
    t.board.logs.length = 0;
    const client = t.board.client({ ip: '198.51.100.9' });
    await client.get('/api/health?secret=1');
    await client.post('/api/auth/login', { user: 'Nobody', pass: password });
    t.board.app.services.db.setFault(() => new Error('disk I/O error'));
    try {
      await client.get('/api/health');
    } finally {
      t.board.app.services.db.setFault(undefined);
    }
    await client.get('/no/such/page');
    assert.ok(
      t.board.logs.some((line) => /^GET \/api\/health 200 \d+(\.\d+)?ms$/.test(line)),
      t.board.logs.join('\n'),
    );
    assert.ok(t.board.logs.some((line) => /^POST \/api\/auth\/login 401 \d+(\.\d+)?ms$/.test(line)));
    assert.ok(t.board.logs.some((line) => /^GET \/api\/health 500 \d+(\.\d+)?ms$/.test(line)));
    assert.ok(t.board.logs.some((line) => /^GET \/no\/such\/page 404 \d+(\.\d+)?ms$/.test(line)));
    for (const line of t.board.logs) {
      assert.ok(!line.includes('198.51.100.9'), `no address in: ${line}`);
      assert.ok(!line.includes('secret=1'), `no query string in: ${line}`);
    }
  });
});
