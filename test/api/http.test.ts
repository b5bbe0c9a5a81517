import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { rawRequest, startBoard, type Answer, type RawAnswer, type TestBoard } from '../helpers.ts';

const password = 'correct horse battery';
const urlencoded = { 'content-type': 'application/x-www-form-urlencoded' };

/** Heuristic for "a German sentence": umlauts or common German words. */
const germanWords = /[äöüßÄÖÜ]|\b(der|die|das|dies\w*|ist|sind|nicht|bitte|zu|ein\w*|es|gibt|hier|oder|mit|von|noch|dich|Anfrage|Fehler|Format|Feld)\b/;

/** SPEC §7: exactly `{error: {code, message, field?, fields?}}`, the message in German. */
function assertErrorBody(body: any, code: string, context = code): void {
  assert.deepEqual(Object.keys(body ?? {}), ['error'], `${context}: the body has only "error"`);
  assert.equal(body.error.code, code, context);
  assert.equal(typeof body.error.message, 'string', context);
  assert.ok(body.error.message.length > 0, `${context}: message not empty`);
  assert.match(body.error.message, germanWords, `${context}: message in German`);
  for (const key of Object.keys(body.error)) assert.ok(['code', 'message', 'field', 'fields'].includes(key), `${context}: unexpected error.${key}`);
}

function json(raw: RawAnswer): any {
  return JSON.parse(raw.text);
}

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
  let board: TestBoard;
  before(async () => { board = await startBoard(); });
  after(() => board.close());

  test('an unknown /api path answers 404 api.not_found in JSON, for any method', async () => {
    for (const [method, path] of [['GET', '/api/nope'], ['POST', '/api/nope'], ['GET', '/api'], ['GET', '/api/'], ['GET', '/api/health/'], ['PUT', '/api/auth/nothing']] as const) {
      const answer = await board.client().send(method, path, undefined);
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.match(answer.headers.get('content-type')!, /^application\/json/);
      assertErrorBody(answer.body, 'api.not_found', `${method} ${path}`);
    }
  });

  test('a known path with the wrong method answers 405 api.method_not_allowed with Allow', async () => {
    const get = await board.client().get('/api/auth/login');
    assert.equal(get.status, 405);
    assertErrorBody(get.body, 'api.method_not_allowed');
    assert.equal(get.headers.get('allow'), 'POST');
    for (const method of ['POST', 'DELETE', 'PUT', 'PATCH']) {
      const answer = await board.client().send(method, '/api/health', undefined);
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers.get('allow'), 'GET, HEAD');
      assertErrorBody(answer.body, 'api.method_not_allowed');
    }
  });

  test('HEAD works wherever GET does', async () => {
    const answer = await rawRequest(board.url, 'HEAD', '/api/health');
    assert.equal(answer.status, 200);
    assert.equal(answer.text, '');
    assert.equal((await rawRequest(board.url, 'HEAD', '/')).status, 200);
  });

  test('health answers 200 {status: ok}', async () => {
    const answer = await board.client().get('/api/health');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { status: 'ok' });
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  test('every error the foundation answers has the same shape and a German message', async () => {
    const c = board.client();
    await board.client().signUp('Shape Tester');
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
      const answer = await pending;
      assert.equal(answer.status, status, `${code}: ${answer.text}`);
      assertErrorBody(answer.body, code);
      assert.match(answer.headers.get('content-type')!, /^application\/json; charset=utf-8$/);
    }
  });
});

describe('request bodies', () => {
  let board: TestBoard;
  before(async () => { board = await startBoard(); });
  after(() => board.close());

  test('a non-empty text/plain or JSON body answers 415 input.unsupported_type', async () => {
    for (const [type, body] of [['text/plain', 'user=a&pass=b'], ['application/json', '{"user":"a","pass":"b"}'], ['', 'user=a']] as const) {
      const answer = await rawRequest(board.url, 'POST', '/api/auth/newuser', type ? { 'content-type': type } : {}, body);
      assert.equal(answer.status, 415, `${type || 'no type'}: ${answer.text}`);
      assertErrorBody(json(answer), 'input.unsupported_type');
    }
  });

  test('an empty POST body is an empty form whatever its content type', async () => {
    for (const type of ['application/json', 'text/plain', 'multipart/form-data', 'application/x-www-form-urlencoded']) {
      const answer = await rawRequest(board.url, 'POST', '/api/auth/newuser', { 'content-type': type, 'content-length': '0' });
      assert.equal(answer.status, 400, `${type}: ${answer.text}`);
      assert.equal(json(answer).error.code, 'auth.invalid');
    }
    const noLength = await rawRequest(board.url, 'POST', '/api/auth/login', { 'content-type': 'application/json' });
    assert.equal(noLength.status, 400);
    assert.equal(json(noLength).error.field, 'user');
  });

  test('every POST endpoint takes multipart as well as urlencoded', async () => {
    const client = board.client();
    const created = await client.postMultipart('/api/auth/newuser', { user: 'Multi Part', pass1: password, pass2: password });
    assert.equal(created.status, 201, created.text);
    const login = await client.postMultipart('/api/auth/login', { user: 'Multi Part', pass: password });
    assert.equal(login.status, 200, login.text);
    assert.equal((await client.postMultipart('/api/user/rename', { user: 'Multi Part Two' })).status, 200);
  });

  test('a urlencoded body of up to 64 KiB is read; one byte more answers 413 input.too_large', async () => {
    const fits = 'user=' + 'a'.repeat(64 * 1024 - 5);
    const ok = await rawRequest(board.url, 'POST', '/api/auth/newuser', urlencoded, fits);
    assert.equal(ok.status, 400, 'read and validated');
    assert.equal(json(ok).error.code, 'auth.invalid');
    const answer = await rawRequest(board.url, 'POST', '/api/auth/newuser', urlencoded, fits + 'a');
    assert.equal(answer.status, 413);
    assertErrorBody(json(answer), 'input.too_large');
  });

  test('a chunked urlencoded body over 64 KiB answers 413 too, not a dropped connection', async () => {
    const body = 'user=' + 'a'.repeat(100 * 1024);
    const chunked = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const head = `POST /api/auth/newuser HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`;
    const answer = await rawSocket(board, head + chunked);
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.match(answer, /"code":"input\.too_large"/);
  });

  test('the first value of a repeated field counts', async () => {
    await board.client().post('/api/auth/newuser', { user: 'First Value', pass1: password, pass2: password });
    const answer = await rawRequest(board.url, 'POST', '/api/auth/login', urlencoded, `user=First+Value&pass=${encodeURIComponent(password)}&pass=wrong`);
    assert.equal(answer.status, 200, answer.text);
  });
});

describe('headers on every kind of answer', () => {
  let board: TestBoard;
  let mediaPath: string;
  before(async () => {
    board = await startBoard();
    mkdirSync(join(board.config.mediaDir, 'a'), { recursive: true });
    mediaPath = 'a/0123456789abcdef0123456789abcdef.png';
    writeFileSync(join(board.config.mediaDir, mediaPath), Buffer.from('89504e470d0a1a0a', 'hex'));
  });
  after(() => board.close());

  test('X-Content-Type-Options: nosniff on API answers, errors, pages and files', async () => {
    for (const path of ['/api/health', '/api/nope', '/api/user/info', '/', '/login', '/no/such/page', `/static/media/${mediaPath}`, '/static/media/missing.png']) {
      const answer = await board.client().get(path);
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff', path);
    }
  });

  test('pages answer HTML with a Content-Security-Policy that allows only the board itself', async () => {
    for (const [path, status] of [['/', 200], ['/reset', 200], ['/login', 200], ['/register', 200], ['/settings', 200], ['/stats', 200], ['/no/such/page', 404], ['/static/media/missing.png', 404]] as const) {
      const answer = await board.client().get(path);
      assert.equal(answer.status, status, path);
      assert.match(answer.headers.get('content-type')!, /^text\/html/, path);
      assert.match(answer.text, /<html/i, path);
      const csp = answer.headers.get('content-security-policy') ?? '';
      for (const directive of ["default-src 'self'", "img-src 'self' data: blob:", "object-src 'none'", "frame-ancestors 'none'"]) {
        assert.ok(csp.split(/;\s*/).includes(directive), `${path}: ${directive} in ${csp}`);
      }
    }
  });

  test('a media file is served with its image type', async () => {
    const answer = await rawRequest(board.url, 'GET', `/static/media/${mediaPath}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'image/png');
    assert.equal(answer.headers['content-length'], '8');
  });

  test('API answers are never cached', async () => {
    for (const path of ['/api/health', '/api/nope', '/api/user/info']) {
      assert.equal((await board.client().get(path)).headers.get('cache-control'), 'no-store', path);
    }
  });
});

describe('pages', () => {
  let board: TestBoard;
  before(async () => {
    board = await startBoard();
    await board.client().signUp('Page Owner');
  });
  after(() => board.close());

  test('a user page answers 200 for a known name in any letter case and 404 for an unknown one', async () => {
    for (const [path, status] of [['/u/Page%20Owner', 200], ['/u/page%20owner', 200], ['/u/Nobody', 404], ['/u/%', 404]] as const) {
      const answer = await rawRequest(board.url, 'GET', path);
      assert.equal(answer.status, status, path);
      assert.match(String(answer.headers['content-type']), /^text\/html/, path);
      assert.ok(answer.headers['content-security-policy'], path);
    }
  });

  test('an entry page of an unknown or malformed id answers the HTML page with 404', async () => {
    for (const path of ['/e/1', '/e/0', '/e/abc', '/e/-1', '/e/99999999999999999999']) {
      const answer = await rawRequest(board.url, 'GET', path);
      assert.equal(answer.status, 404, path);
      assert.match(String(answer.headers['content-type']), /^text\/html/, path);
    }
  });
});

describe('cross-site request forgery guard', () => {
  let board: TestBoard;
  let host: string;
  before(async () => {
    board = await startBoard({ BOARD_ORIGIN: 'https://board.example' });
    host = new URL(board.url).host;
  });
  after(() => board.close());

  const logout = (headers: Record<string, string>) => rawRequest(board.url, 'POST', '/api/auth/logout', headers);

  test('a POST from a foreign Origin answers 403 csrf.bad_origin', async () => {
    for (const origin of ['http://evil.example', 'https://board.example.evil.example', `http://${host}.evil.example`, 'https://board.example:8443', 'http://board.example']) {
      const answer = await logout({ host, origin });
      assert.equal(answer.status, 403, origin);
      assertErrorBody(json(answer), 'csrf.bad_origin', origin);
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
    assert.equal((await logout({ host: 'Proxy.Example', origin: 'https://proxy.example' })).status, 200, 'host names ignore case');
  });

  test('a POST without Origin is allowed (curl)', async () => {
    assert.equal((await logout({ host })).status, 200);
  });

  test('GET and HEAD with a foreign Origin are allowed', async () => {
    assert.equal((await rawRequest(board.url, 'GET', '/api/health', { origin: 'http://evil.example' })).status, 200);
    assert.equal((await rawRequest(board.url, 'HEAD', '/api/health', { origin: 'http://evil.example' })).status, 200);
  });

  test('the guard applies to every POST, before the rate limit and the session check', async () => {
    const client = board.client();
    const answer = await client.post('/api/user/rename', { user: 'Whoever' }, { origin: 'http://evil.example' });
    assert.equal(answer.status, 403);
    assert.equal(answer.body.error.code, 'csrf.bad_origin');
  });
});

describe('static files never leave their folders', () => {
  let board: TestBoard;
  before(async () => {
    board = await startBoard();
    mkdirSync(join(board.config.mediaDir, 'e'), { recursive: true });
    writeFileSync(join(board.config.mediaDir, 'e', 'real.jpg'), 'JPEGDATA');
    writeFileSync(join(board.config.dataDir, 'secret.txt'), 'TOPSECRET');
  });
  after(() => board.close());

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
    '/static/media/e/real.jpg%00.png',
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
      const answer = await rawRequest(board.url, 'GET', path);
      assert.equal(answer.status, 404, `${path}: ${answer.status}`);
      assert.doesNotMatch(answer.text, /TOPSECRET|SQLite format|"name": "board"|root:/, path);
    }
  });

  test('the same attempts on a bare socket answer 404 too', async () => {
    for (const path of ['/static/../package.json', '/static/media/../../secret.txt', '/static/media/..%2f..%2fboard.db']) {
      const answer = await rawSocket(board, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 404 /, path);
      assert.doesNotMatch(answer, /TOPSECRET|SQLite format|"name": "board"/, path);
    }
  });

  test('an existing media file is served', async () => {
    const answer = await rawRequest(board.url, 'GET', '/static/media/e/real.jpg');
    assert.equal(answer.status, 200);
    assert.equal(answer.text, 'JPEGDATA');
    assert.equal(answer.headers['content-type'], 'image/jpeg');
  });
});

describe('database failures and the log', () => {
  let board: TestBoard;
  before(async () => { board = await startBoard({ BOARD_TRUST_PROXY: '1' }); });
  after(() => {
    board.app.services.db.setFault(undefined);
    return board.close();
  });

  test('health and logout answer 500 internal in JSON while the database fails, and recover', async () => {
    const client = await board.client().signUp('Unlucky');
    board.app.services.db.setFault(() => new Error('disk I/O error'));
    try {
      const health = await board.client().get('/api/health');
      assert.equal(health.status, 500);
      assertErrorBody(health.body, 'internal');
      const logout = await client.post('/api/auth/logout');
      assert.equal(logout.status, 500);
      assertErrorBody(logout.body, 'internal');
      assert.deepEqual(logout.headers.getSetCookie(), [], 'a failed logout does not pretend to have logged out');
      assert.equal((await client.get('/api/user/info')).status, 500, 'a session lookup that fails is not a 401');
    } finally {
      board.app.services.db.setFault(undefined);
    }
    assert.deepEqual((await board.client().get('/api/health')).body, { status: 'ok' });
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 200, 'the session survived the failed logout');
    assert.equal((await client.post('/api/auth/logout')).status, 200);
    assert.equal((await client.get('/api/auth/sessioninfo')).status, 401);
  });

  test("a failure's stack goes to the log and never into the answer", async () => {
    board.logs.length = 0;
    board.app.services.db.setFault(() => new Error('disk I/O error at sector 42'));
    let answer: Answer;
    try {
      answer = await board.client().get('/api/health');
    } finally {
      board.app.services.db.setFault(undefined);
    }
    assert.equal(answer.status, 500);
    assert.doesNotMatch(answer.text, /sector 42|disk I\/O|\bat \S+\.ts|\.ts:\d+/);
    const logged = board.logs.join('\n');
    assert.match(logged, /disk I\/O error at sector 42/);
    assert.match(logged, /\n\s+at .+/, 'the stack trace is in the log');
  });

  test('the access log has method, path, status and duration, and never the client address', async () => {
    board.logs.length = 0;
    const client = board.client({ ip: '198.51.100.9' });
    await client.get('/api/health?secret=1');
    await client.post('/api/auth/login', { user: 'Nobody', pass: password });
    board.app.services.db.setFault(() => new Error('disk I/O error'));
    try {
      await client.get('/api/health');
    } finally {
      board.app.services.db.setFault(undefined);
    }
    await client.get('/no/such/page');
    assert.ok(board.logs.some((line) => /^GET \/api\/health 200 \d+(\.\d+)?ms$/.test(line)), board.logs.join('\n'));
    assert.ok(board.logs.some((line) => /^POST \/api\/auth\/login 401 \d+(\.\d+)?ms$/.test(line)));
    assert.ok(board.logs.some((line) => /^GET \/api\/health 500 \d+(\.\d+)?ms$/.test(line)));
    assert.ok(board.logs.some((line) => /^GET \/no\/such\/page 404 \d+(\.\d+)?ms$/.test(line)));
    for (const line of board.logs) {
      assert.ok(!line.includes('198.51.100.9'), `no address in: ${line}`);
      assert.ok(!line.includes('secret=1'), `no query string in: ${line}`);
    }
  });
});
