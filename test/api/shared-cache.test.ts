import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sharedCache } from '../../lib/http/respond.ts';
import { assertDocumented, assertError, post, useBoard, type Answer } from '../helpers.ts';
import { impressionsSoFar } from '../helpers/atom.ts';

/**
 * docs/API.md "Shared caches": which answers a cache in front may keep for logged-out readers
 * (Cache-Control public with s-maxage, Vary: Cookie), and that nothing private or personal is
 * ever marked so: not for a request with a session cookie, not an error, not /api/user/ or votes.
 */

// stale-if-error as long as stale-while-revalidate: a copy never outlives the bound, also while the board is down.
const sharedControl = `public, max-age=0, s-maxage=${sharedCache.seconds}, stale-while-revalidate=${sharedCache.staleSeconds}, stale-if-error=${sharedCache.staleSeconds}`;

function assertShared(answer: Answer, what: string) {
  assert.equal(answer.status, 200, `${what}: ${answer.text.slice(0, 200)}`);
  assert.equal(answer.headers.get('cache-control'), sharedControl, what);
  assert.equal(answer.headers.get('vary'), 'Cookie', what);
}

/** Nothing may keep it, or (a public Atom feed, as before) only asking the board again each time. */
function assertNotShared(answer: Answer, what: string) {
  const control = answer.headers.get('cache-control') ?? '';
  assert.doesNotMatch(control, /s-maxage|stale-while-revalidate|stale-if-error/, `${what}: ${control}`);
  assert.ok(/no-store|no-cache/.test(control), `${what}: ${control}`);
}

describe('shared caches: Cache-Control of every answer', () => {
  const t = useBoard({ members: ['Leserin', 'Schreiber'] });
  let pid = 0;
  let paths: string[] = [];

  test('every answer that is the same for all logged-out readers says a shared cache may keep it', async () => {
    pid = await post(t.members.Schreiber, 'Ein öffentlicher Beitrag.');
    paths = [
      '/api/entry/feed/0',
      `/api/entry/${pid}/thread`,
      '/api/u/Schreiber/feed/0',
      '/api/u/Schreiber/info',
      '/api/search/0?q=Beitrag',
      '/api/modlog/0',
      '/feed.atom',
      `/e/${pid}/feed.atom`,
      '/u/Schreiber/feed.atom',
      '/',
      `/e/${pid}`,
      '/u/Schreiber',
      '/login',
      '/suche?q=Beitrag',
      `/api/entry/${pid}/votes`,
      `/api/entry/votes?pids=${pid}`,
    ];
    const visitor = t.board.client();
    // Twice: the feed and the thread come from the fast path the second time (lib/http/fast-path.ts).
    for (let round = 0; round < 2; round++)
      for (const path of paths) {
        const answer = await visitor.get(path);
        assertShared(answer, path);
        assertDocumented(answer);
      }
  });

  test('a request with a session cookie is never told to share, and reads the same bodies', async () => {
    const visitor = t.board.client();
    const stranger = t.board.client();
    for (const path of paths) {
      const own = await t.members.Leserin.get(path);
      assert.equal(own.status, 200, path);
      assertNotShared(own, `${path} with a session`);
      assert.equal(own.headers.get('vary'), null, path);
      // An invalid or expired session cookie too: a cache in front sees only the cookie.
      assertNotShared(await stranger.get(path, { cookie: 'session=abgelaufen' }), `${path} with a stale cookie`);
      if (path.startsWith('/api/')) assert.equal(own.text, (await visitor.get(path)).text, `${path}: same body`);
    }
    // The fast path's answer (a cached feed page) with a session: the board's usual no-store.
    assert.equal((await t.members.Leserin.get('/api/entry/feed/0')).headers.get('cache-control'), 'no-store');
    assert.equal((await t.members.Leserin.get('/')).headers.get('cache-control'), 'no-cache');
  });

  test("errors, personal answers, a session's votes, the beacon and writes are never shared", async () => {
    const visitor = t.board.client();
    const cases: [string, Answer][] = [
      ['thread 404', await visitor.get('/api/entry/999999/thread')],
      ['feed page 400', await visitor.get('/api/entry/feed/101')],
      ['user 404', await visitor.get('/api/u/Niemand/info')],
      ['page 404', await visitor.get('/e/999999')],
      ['unknown page', await visitor.get('/gibt-es-nicht')],
      ['own info without session', await visitor.get('/api/user/info')],
      ['own info', await t.members.Leserin.get('/api/user/info')],
      ['votes with a session', await t.members.Leserin.get(`/api/entry/${pid}/votes`)],
      ['votes of several with a session', await t.members.Leserin.get(`/api/entry/votes?pids=${pid}`)],
      ['whoami', await visitor.get('/api/auth/whoami')],
      ['beacon', await visitor.post('/api/impression', { page: '/' })],
      ['beacon image', await visitor.get('/api/impression')],
      ['health', await visitor.get('/api/health')],
      ['mod queue', await t.members.Leserin.get('/api/mod/queue')],
    ];
    for (const [what, answer] of cases) {
      assertNotShared(answer, what);
      assert.equal(answer.headers.get('vary'), null, what);
    }
    // A login sets a cookie: never shared.
    const login = await t.board.client().post('/api/auth/login', { user: 'Leserin', pass: 'x' });
    assertNotShared(login, 'login');
  });
});

describe('the impression beacon: POST /api/impression, GET /api/impression (BOARD_IMPRESSION_BEACON=1)', () => {
  const t = useBoard({ env: { BOARD_IMPRESSION_BEACON: '1' }, members: ['Autorin'] });
  const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' };

  test('the page GET counts nothing; the beacon counts the pages that count, nothing else', async () => {
    const pid = await post(t.members.Autorin, 'Gezählt wird der Besuch.');
    // A gone entry counts while its page shows the thread (a live reply below), not when it answers 410.
    const gone = await post(t.members.Autorin, 'Gleich gelöscht.');
    const goneWithReply = await post(t.members.Autorin, 'Gelöscht, aber mit Antwort.');
    await post(t.members.Autorin, 'Die Antwort bleibt.', goneWithReply);
    for (const p of [gone, goneWithReply])
      assert.equal((await t.members.Autorin.post(`/api/entry/${p}/delete`)).status, 200);
    assert.equal((await t.board.client().get(`/e/${gone}`)).status, 410);
    const reader = t.board.client({ ip: '198.51.100.20' });
    const before = impressionsSoFar(t.board);
    assert.equal((await reader.get('/', browser)).status, 200);
    assert.equal(impressionsSoFar(t.board), before, 'the page itself may come from a cache: it counts nothing');
    const counted: [string, boolean][] = [
      ['/', true],
      [`/e/${pid}`, true],
      ['/u/Autorin', true],
      ['/u/autorin', true], // looked up like a login
      [`/e/${goneWithReply}`, true],
      [`/e/${gone}`, false],
      ['/e/999999', false],
      ['/e/abc', false],
      ['/u/Niemand', false],
      ['/u/%E0%A4%A', false], // a malformed escape
      ['/login', false],
      ['/suche', false],
      ['/api/entry/feed/0', false],
      [`/${'x'.repeat(400)}`, false],
    ];
    for (const [page, expected] of counted) {
      const beacon = await reader.post('/api/impression', { page }, browser);
      assertDocumented(beacon);
      assert.deepEqual([beacon.status, beacon.body], [200, { counted: expected }], page);
      assert.equal(beacon.headers.get('cache-control'), 'no-store');
    }
    assert.equal(impressionsSoFar(t.board), before + 5);
    // Bots count nothing, as before.
    const bot = await reader.post('/api/impression', { page: '/' }, { 'user-agent': 'Googlebot/2.1' });
    assert.deepEqual(bot.body, { counted: false });
    assert.equal(impressionsSoFar(t.board), before + 5);
  });

  test('without a page it is a 400; from another site it is refused (CSRF)', async () => {
    const reader = t.board.client();
    assertError(await reader.post('/api/impression', {}), 400, 'input.invalid');
    assertError(
      await reader.post('/api/impression', { page: '/' }, { origin: 'https://elsewhere.example' }),
      403,
      'csrf.bad_origin',
    );
  });

  test("without JavaScript: the page's noscript image counts its page from a same-origin Referer only", async () => {
    const reader = t.board.client({ ip: '198.51.100.21' });
    const before = impressionsSoFar(t.board);
    const own = await reader.get('/api/impression', { ...browser, referer: `${t.board.url}/u/Autorin` });
    assertDocumented(own);
    assert.equal(own.status, 200);
    assert.equal(own.headers.get('content-type'), 'image/gif');
    assert.equal(own.headers.get('cache-control'), 'no-store');
    assert.equal(impressionsSoFar(t.board), before + 1);
    for (const referer of [undefined, 'https://elsewhere.example/u/Autorin', 'kein URL', `${t.board.url}/login`]) {
      const answer = await reader.get('/api/impression', { ...browser, ...(referer ? { referer } : {}) });
      assert.equal(answer.status, 200, String(referer));
    }
    assert.equal(impressionsSoFar(t.board), before + 1);
  });
});
