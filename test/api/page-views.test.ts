import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { impressionsSoFar } from '../helpers/atom.ts';
import {
  assertDocumented,
  eventually,
  member,
  noticesLogged,
  post,
  startBoard,
  useBoard,
  type TestBoard,
} from '../helpers.ts';
import { responsesOf } from '../../lib/http/response-cache.ts';

/**
 * SPEC §4 "Pages": /, /e/{pid} and /u/{username} count anonymised impressions, on their GET
 * (docs/API.md "What counts"), whether the pipeline draws the page or the fast path sends it from
 * the response cache; a proxy in front tells the board of the views its cache answers (the view
 * notice); the beacon counts only with BOARD_IMPRESSION_BEACON=1. test/deploy/nginx-cache.test.ts
 * does the same through the real nginx, test/browser/impressions.test.ts in Chromium.
 */

const curl = { 'user-agent': 'curl/8.5.0' };
const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' };
const mirror = { ...curl, 'x-board-view': 'mirror' };
const mirrored = { ...curl, 'x-board-view': 'mirrored' };

/** An entry with a page (200), and a deleted one with nothing live below it (410). */
async function entries(board: TestBoard, name: string): Promise<{ live: number; gone: number }> {
  const author = await member(board, name);
  const live = await post(author, 'Ein Beitrag, der gezählt wird.');
  const gone = await post(author, 'Gleich gelöscht.');
  assert.equal((await author.post(`/api/entry/${gone}/delete`)).status, 200);
  return { live, gone };
}

describe('the board alone: every page GET answered 200 counts', () => {
  const t = useBoard();
  let pids: { live: number; gone: number };
  before(async () => {
    pids = await entries(t.board, 'Zählerin');
  });

  test('10 GETs of one page by curl count 10; the board drew it once and sent it from its cache 9 times', async () => {
    const reader = t.board.client({ ip: '198.51.100.30' });
    const tally = responsesOf(t.board.app.services.db).tally;
    const [hits, misses] = [tally.pageHits, tally.pageMisses];
    const before = impressionsSoFar(t.board);
    for (let i = 0; i < 10; i++) assert.equal((await reader.get(`/e/${pids.live}`, curl)).status, 200);
    assert.deepEqual([tally.pageMisses - misses, tally.pageHits - hits], [1, 9], 'one drawn, nine from the fast path');
    assert.equal(impressionsSoFar(t.board), before + 10);
    const stats = await reader.get('/api/stats/detail');
    assertDocumented(stats);
    assert.equal(stats.body.impressions_total, before + 10);
  });

  test('the feed and a profile count, later pages too; a logged-in reader counts once per view', async () => {
    const reader = t.board.client({ ip: '198.51.100.31' });
    const own = await member(t.board, 'Angemeldet');
    const before = impressionsSoFar(t.board);
    for (const path of ['/', '/?seite=2', '/u/Z%C3%A4hlerin', '/u/z%C3%A4hlerin'])
      assert.equal((await reader.get(path, browser)).status, 200, path);
    for (let i = 0; i < 2; i++) assert.equal((await own.get('/', browser)).status, 200);
    assert.equal(impressionsSoFar(t.board), before + 6);
  });

  test('404 and 410 pages, HEAD, the other views and bots count nothing', async () => {
    const reader = t.board.client({ ip: '198.51.100.32' });
    const before = impressionsSoFar(t.board);
    for (let i = 0; i < 2; i++) {
      assert.equal((await reader.get(`/e/${pids.gone}`, curl)).status, 410);
      assert.equal((await reader.get('/e/999999', curl)).status, 404);
      assert.equal((await reader.get('/u/Niemand', curl)).status, 404);
      assert.equal((await reader.send('HEAD', `/e/${pids.live}`, undefined, curl)).status, 200);
      assert.equal((await reader.get(`/e/${pids.live}`, { 'user-agent': 'Googlebot/2.1' })).status, 200);
      for (const path of ['/suche?q=Beitrag', '/modlog', '/stats', '/login'])
        assert.equal((await reader.get(path, curl)).status, 200, path);
    }
    assert.equal(impressionsSoFar(t.board), before);
  });
});

describe("a proxy's view notice (X-Board-View, with BOARD_TRUST_PROXY=1)", () => {
  const t = useBoard();
  let pids: { live: number; gone: number };
  before(async () => {
    pids = await entries(t.board, 'Gemeldet');
  });

  test('a notice answers 204 at once, draws no page and counts as the page GET; the GET it marks counts none', async () => {
    const reader = t.board.client({ ip: '198.51.100.40' });
    const tally = responsesOf(t.board.app.services.db).tally;
    const drawn = tally.pageMisses;
    const before = impressionsSoFar(t.board);
    for (const path of ['/', `/e/${pids.live}`, '/u/Gemeldet', '/?seite=3']) {
      const notice = await reader.get(path, mirror);
      assert.deepEqual([notice.status, notice.text], [204, ''], path);
      assert.equal(notice.headers.get('cache-control'), 'no-store', path);
    }
    assert.equal(tally.pageMisses, drawn, 'no page was drawn for a notice');
    assert.equal(impressionsSoFar(t.board), before + 4);
    // The page GETs the proxy forwards, a miss and a logged-in reader's: their notices counted them.
    const own = await member(t.board, 'Durchgereicht');
    assert.equal((await reader.get(`/e/${pids.live}`, mirrored)).status, 200);
    assert.equal((await own.get('/', mirrored)).status, 200);
    assert.equal(impressionsSoFar(t.board), before + 4);
  });

  test('a notice of a 404 or 410 page, of HEAD, of another view or from a bot counts nothing', async () => {
    const reader = t.board.client({ ip: '198.51.100.41' });
    const before = impressionsSoFar(t.board);
    for (const path of [`/e/${pids.gone}`, '/e/999999', '/e/abc', '/u/Niemand', '/login', '/suche', '/modlog'])
      assert.equal((await reader.get(path, mirror)).status, 204, path);
    assert.equal((await reader.send('HEAD', '/', undefined, mirror)).status, 204);
    assert.equal((await reader.get('/', { ...mirror, 'user-agent': 'Googlebot/2.1' })).status, 204);
    assert.equal(impressionsSoFar(t.board), before);
  });

  test('the log counts notices per path and second, with no address', async () => {
    const reader = t.board.client({ ip: '198.51.100.42' });
    const path = `/e/${await post(await member(t.board, 'Protokoll'), 'Nur hier gelesen.')}`;
    for (let i = 0; i < 3; i++) await reader.get(path, mirror);
    await eventually('the notices in the log', () => noticesLogged(t.board, path) === 3);
    assert.ok(t.board.logs.every((l) => !l.includes('198.51.100.42')));
  });
});

describe('without BOARD_TRUST_PROXY no client can mark its own views', () => {
  let board: TestBoard;
  before(async () => {
    board = await startBoard();
  });
  after(() => board?.close());

  test('X-Board-View is an ordinary header: the page is answered and its GET counts once', async () => {
    const reader = board.client();
    const before = impressionsSoFar(board);
    for (const headers of [mirror, mirrored, curl]) {
      const page = await reader.get('/', headers);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
    }
    assert.equal(impressionsSoFar(board), before + 3);
  });
});

describe('BOARD_IMPRESSION_BEACON: the beacon counts, for a cache the board cannot see', () => {
  const on = useBoard({ env: { BOARD_IMPRESSION_BEACON: '1' }, members: ['Leuchte'] });

  test('on: pages carry the beacon; page GETs and notices count nothing, the beacon counts the view', async () => {
    const pid = await post(on.members.Leuchte, 'Gezählt vom Leuchtfeuer.');
    const reader = on.board.client({ ip: '198.51.100.50' });
    const before = impressionsSoFar(on.board);
    for (let i = 0; i < 2; i++) {
      const page = await reader.get(`/e/${pid}`, browser);
      assert.equal(page.status, 200);
      assert.match(page.text, /<noscript id="view-beacon"><img [^>]*src="\/api\/impression"/);
      assert.equal((await reader.get(`/e/${pid}`, { ...browser, 'x-board-view': 'mirror' })).status, 204);
    }
    assert.equal(impressionsSoFar(on.board), before, 'the page GETs (drawn and cached) and notices');
    const beacon = await reader.post('/api/impression', { page: `/e/${pid}` }, browser);
    assert.deepEqual([beacon.status, beacon.body], [200, { counted: true }]);
    assert.equal(impressionsSoFar(on.board), before + 1);
  });
});

describe('BOARD_IMPRESSION_BEACON off (the default): no beacon anywhere', () => {
  const off = useBoard({ members: ['Dunkel'] });

  test('pages carry no beacon; the beacon and its image count nothing, the page GET counts once', async () => {
    const pid = await post(off.members.Dunkel, 'Ohne Leuchtfeuer.');
    const reader = off.board.client({ ip: '198.51.100.51' });
    const before = impressionsSoFar(off.board);
    for (const path of ['/', `/e/${pid}`, '/u/Dunkel', '/login']) {
      const page = await reader.get(path, browser);
      assert.doesNotMatch(page.text, /view-beacon|\/api\/impression/, path);
    }
    assert.equal(impressionsSoFar(off.board), before + 3);
    const beacon = await reader.post('/api/impression', { page: `/e/${pid}` }, browser);
    assertDocumented(beacon);
    assert.deepEqual([beacon.status, beacon.body], [200, { counted: false }]);
    const image = await reader.get('/api/impression', { ...browser, referer: `${off.board.url}/e/${pid}` });
    assert.deepEqual([image.status, image.headers.get('content-type')], [200, 'image/gif']);
    assert.equal(impressionsSoFar(off.board), before + 3);
  });
});
