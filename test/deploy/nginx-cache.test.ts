import assert from 'node:assert/strict';
import { createServer, request, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client as Connection } from 'undici';
import { sharedCache } from '../../lib/http/respond.ts';
import { impressionsSoFar } from '../helpers/atom.ts';
import {
  assertCleanConsole,
  newRecordedContext,
  releaseChromium,
  sharedChromium,
  skipWithoutChromium,
} from '../helpers/browser.ts';
import {
  Client,
  eventually,
  member,
  moderator,
  noticesLogged,
  post,
  startProxiedBoard,
  type Answer,
  type TestBoard,
} from '../helpers.ts';
import { nginxPath, startNginx, type RunningNginx } from '../helpers/nginx.ts';
import { freePort } from '../helpers/ports.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

/**
 * Issue 33 part 2 with the real nginx (Debian package) on loopback, running deploy/nginx.conf as an
 * operator installs it (test/helpers/nginx.ts changes only ports, TLS and folders): logged-out
 * readers are answered from its cache, logged-in readers never are, answers that set a cookie never
 * enter it, every page view counts once (nginx's view notices, docs/API.md "What counts"), a notice
 * never holds a reader for long, and a removed page never comes back while the board is down.
 */

const skip = nginxPath()
  ? false
  : 'nginx is not installed here (Debian package nginx): the cache in front is not tested';
const cacheStatus = (answer: Answer) => answer.headers.get('x-cache-status');
const curl = { 'user-agent': 'curl/8.5.0' };

describe('the board behind deploy/nginx.conf with its cache', { skip, timeout: hangBoundMs }, () => {
  let board: TestBoard;
  let nginx: RunningNginx;
  /** A logged-out reader, through nginx. */
  let reader: Client;
  /** Two logged-in readers, through nginx, with the session cookies the board gave them. */
  let ann: Client;
  let bob: Client;

  before(async () => {
    const port = await freePort();
    // The board's origin is nginx's, as in production, so the page's beacon passes the CSRF check.
    // View notices are logged (and so awaited by the tests) every 100 ms instead of every second.
    board = await startProxiedBoard({ BOARD_ORIGIN: `http://127.0.0.1:${port}` }, { timeouts: { hitLinesMs: 100 } });
    nginx = await startNginx(Number(new URL(board.url).port), port);
    reader = new Client(nginx.url);
    ann = new Client(nginx.url);
    ann.cookie = (await member(board, 'Ann Nginx')).cookie;
    bob = new Client(nginx.url);
    bob.cookie = (await member(board, 'Bob Nginx')).cookie;
  });
  after(async () => {
    await nginx?.stop();
    await board?.close();
  });

  test('a logged-out read is a MISS, then a HIT with the same bytes', async () => {
    await post(ann, 'Der erste Beitrag hinter nginx.');
    for (const path of ['/api/entry/feed/0', '/', '/feed.atom', '/api/u/Ann%20Nginx/info']) {
      const first = await reader.get(path);
      const second = await reader.get(path);
      assert.equal(first.status, 200, path);
      assert.equal(cacheStatus(first), 'MISS', path);
      assert.equal(cacheStatus(second), 'HIT', path);
      assert.equal(second.text, first.text, path);
    }
  });

  test('a create shows to logged-out readers once s-maxage is over; a logged-in reader sees it at once', async () => {
    const stored = Date.now();
    const cached = await reader.get('/api/entry/feed/0?create-test');
    assert.equal(cacheStatus(cached), 'MISS');
    const pid = await post(bob, 'Ein neuer Beitrag.');
    const shows = (answer: Answer) => answer.text.includes(`"pid":${pid}`);
    // Within s-maxage the cache answers its copy; Bob, with his session, reads his own write.
    const early = await reader.get('/api/entry/feed/0?create-test');
    assert.equal(cacheStatus(early), 'HIT');
    assert.equal(shows(early), false);
    const own = await bob.get('/api/entry/feed/0?create-test');
    assert.equal(cacheStatus(own), 'BYPASS');
    assert.equal(shows(own), true);
    // nginx counts whole seconds: a second more than s-maxage after the copy was stored, it is stale.
    await sleep(Math.max(0, stored + (sharedCache.seconds + 1) * 1000 - Date.now()));
    // The first reader after that may still get the old copy while nginx fetches the new one
    // (stale-while-revalidate); once that fetch is back, readers get the new page.
    const seen: string[] = [];
    for (let attempt = 0; attempt < 50; attempt++) {
      const answer = await reader.get('/api/entry/feed/0?create-test');
      seen.push(`${cacheStatus(answer)}:${shows(answer)}`);
      if (shows(answer)) break;
      await sleep(100);
    }
    assert.equal(seen.at(-1)?.endsWith(':true'), true, seen.join(' '));
    assert.ok(
      seen.slice(0, -1).every((s) => /^(STALE|UPDATING):false$/.test(s)),
      `only stale copies while one refresh ran: ${seen.join(' ')}`,
    );
  });

  test('a logged-in reader never gets a cached answer, and their answers are never stored', async () => {
    const path = '/api/entry/feed/2';
    for (const who of [ann, bob, ann]) assert.equal(cacheStatus(await who.get(path)), 'BYPASS');
    // Had nginx stored one of those, this would be a HIT.
    assert.equal(cacheStatus(await reader.get(path)), 'MISS');
    assert.equal(cacheStatus(await reader.get(path)), 'HIT');
    // A cached page is never the answer to a session cookie either, nor to an expired one.
    assert.equal(cacheStatus(await ann.get(path)), 'BYPASS');
    assert.equal(cacheStatus(await reader.get(path, { cookie: 'session=abgelaufen' })), 'BYPASS');
    // A tally is shared for logged-out readers, but a session's own `selected` never is: each
    // logged-in reader gets their own from the board, never the cached one or another's.
    const pid = await post(ann, 'Abstimmen bitte.');
    assert.equal((await ann.post(`/api/entry/${pid}/vote`, { mode: 'yes' })).status, 200);
    const statuses: string[] = [];
    for (let round = 0; round < 2; round++) {
      const outVotes = await reader.get(`/api/entry/${pid}/votes`);
      const annVotes = await ann.get(`/api/entry/${pid}/votes`);
      const bobVotes = await bob.get(`/api/entry/${pid}/votes`);
      assert.equal(annVotes.body.selected, 'yes');
      assert.notEqual(bobVotes.body.selected, 'yes');
      assert.notEqual(outVotes.body.selected, 'yes');
      assert.deepEqual([cacheStatus(annVotes), cacheStatus(bobVotes)], ['BYPASS', 'BYPASS']);
      statuses.push(cacheStatus(outVotes)!);
    }
    assert.deepEqual(statuses, ['MISS', 'HIT']);
    assert.equal(cacheStatus(await ann.get('/api/user/info')), 'BYPASS');
    assert.equal(cacheStatus(await reader.get('/api/user/info')), 'MISS');
    assert.equal(cacheStatus(await reader.get('/api/user/info')), 'MISS');
  });

  /** impressions_total as /api/stats/detail answers it (unflushed counts included), asked of the board itself. */
  const impressions = async () => (await board.client().get('/api/stats/detail')).body.impressions_total as number;

  /** GETs each path through nginx, then waits until the board has answered every one's view notice. */
  async function viewThrough(client: Client, paths: string[], headers: Record<string, string> = curl) {
    const answers: Answer[] = [];
    const expected = new Map<string, number>();
    for (const target of paths) {
      const path = target.split('?')[0]!; // as the log has it
      expected.set(path, (expected.get(path) ?? noticesLogged(board, path)) + 1);
    }
    for (const path of paths) answers.push(await client.get(path, headers));
    for (const [path, count] of expected)
      await eventually(`the view notices of ${path}`, () => noticesLogged(board, path) === count);
    return answers;
  }

  test('10 GETs of one cached page by curl count 10: nginx tells the board of its hits, and its miss counts once', async () => {
    const pid = await post(ann, 'Zehnmal gelesen.');
    const path = `/e/${pid}`;
    const before = await impressions();
    const answers = await viewThrough(reader, Array(10).fill(path));
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(10).fill(200),
    );
    assert.deepEqual(answers.slice(0, 2).map(cacheStatus), ['MISS', 'HIT']);
    const pageGets = board.logs.filter((line) => line.startsWith(`GET ${path} 200 `) && !line.includes(' view x'));
    assert.equal(pageGets.length, 1, `the miss reached the board, the hits did not: ${pageGets.join(' | ')}`);
    assert.equal(await impressions(), before + 10);
    // The feed and a profile as well, their later pages too.
    await viewThrough(reader, ['/', '/', '/?seite=2', '/u/Ann%20Nginx']);
    assert.equal(await impressions(), before + 14);
  });

  test('a logged-in reader (the cache bypassed) counts once per view; a client cannot forge the mark', async () => {
    const before = await impressions();
    const answers = await viewThrough(bob, ['/u/Bob%20Nginx', '/u/Bob%20Nginx']);
    assert.deepEqual(answers.map(cacheStatus), ['BYPASS', 'BYPASS']);
    assert.equal(await impressions(), before + 2);
    // A client's own X-Board-View is replaced by nginx's: the page is answered and counted once.
    const [forged] = await viewThrough(reader, ['/u/Bob%20Nginx'], { ...curl, 'x-board-view': 'mirror' });
    assert.equal(forged!.status, 200);
    assert.match(forged!.headers.get('content-type')!, /^text\/html/);
    assert.equal(await impressions(), before + 3);
  });

  test('bots, HEAD, 404 and 410 pages and the other views count nothing through nginx either', async () => {
    const gone = await post(ann, 'Gleich gelöscht.');
    assert.equal((await ann.post(`/api/entry/${gone}/delete`)).status, 200);
    const live = await post(ann, 'Bleibt stehen.');
    const before = await impressions();
    const bot = await viewThrough(reader, [`/e/${live}`, `/e/${live}`], { 'user-agent': 'Googlebot/2.1' });
    assert.deepEqual(
      bot.map((a) => a.status),
      [200, 200],
    );
    const missing = await viewThrough(reader, [`/e/${gone}`, '/e/999999', '/u/Niemand', `/e/${gone}`]);
    assert.deepEqual(
      missing.map((a) => a.status),
      [410, 404, 404, 410],
    );
    const head = await reader.send('HEAD', `/e/${live}`, undefined, curl);
    assert.equal(head.status, 200);
    await eventually("the HEAD's notice", () => board.logs.includes(`HEAD /e/${live} 204 view`));
    for (const path of ['/login', '/stats', '/modlog', '/suche?q=Bleibt', '/api/entry/feed/0', '/feed.atom'])
      assert.equal((await reader.get(path, curl)).status, 200, path);
    assert.equal(await impressions(), before);
    await viewThrough(reader, [`/e/${live}`]);
    assert.equal(await impressions(), before + 1, 'a reader after them counts');
  });

  test('a browser page load through nginx counts 1', { skip: skipWithoutChromium }, async () => {
    const pid = await post(ann, 'Im Browser gelesen.');
    const path = `/e/${pid}`;
    const browserProcess = await sharedChromium();
    try {
      const { context, recorder } = await newRecordedContext(browserProcess);
      context.setDefaultTimeout(30_000); // every module and API call passes two servers
      const page = await context.newPage();
      const before = await impressions();
      const notices = noticesLogged(board, path);
      assert.equal((await page.goto(nginx.url + path))?.status(), 200);
      await page.locator('html[data-ready="true"]').waitFor();
      await eventually('the view notice', () => noticesLogged(board, path) === notices + 1);
      assert.equal(await impressions(), before + 1);
      assert.ok(recorder.requests.length > 1, 'the page loaded its scripts and data through nginx too');
      assert.deepEqual(
        recorder.requests.filter((url) => new URL(url).pathname === '/api/impression'),
        [],
        'no beacon',
      );
      assertCleanConsole(recorder);
      await context.close();
    } finally {
      await releaseChromium(browserProcess);
    }
  });
});

describe('behind nginx with BOARD_IMPRESSION_BEACON=1 (a CDN in front of it)', { skip, timeout: hangBoundMs }, () => {
  let board: TestBoard;
  let nginx: RunningNginx;
  const browser = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' };

  before(async () => {
    const port = await freePort();
    // The board's origin is nginx's, as in production, so the page's beacon passes the CSRF check.
    board = await startProxiedBoard(
      { BOARD_ORIGIN: `http://127.0.0.1:${port}`, BOARD_IMPRESSION_BEACON: '1' },
      { timeouts: { hitLinesMs: 100 } },
    );
    nginx = await startNginx(Number(new URL(board.url).port), port);
  });
  after(async () => {
    await nginx?.stop();
    await board?.close();
  });

  test('the page GETs and their notices count nothing; the beacon always reaches the board, never the cache', async () => {
    await member(board, 'Ann Leuchte');
    const reader = new Client(nginx.url);
    const before = impressionsSoFar(board);
    for (let i = 0; i < 2; i++) assert.equal((await reader.get('/u/Ann%20Leuchte', browser)).status, 200);
    const page = await reader.get('/u/Ann%20Leuchte', browser);
    assert.equal(cacheStatus(page), 'HIT');
    await eventually('the view notices', () => noticesLogged(board, '/u/Ann%20Leuchte') === 3);
    assert.equal(impressionsSoFar(board), before, 'with the beacon on, only the beacon counts');
    for (let i = 0; i < 3; i++) {
      const beacon = await reader.post('/api/impression', { page: '/u/Ann%20Leuchte' }, browser);
      assert.deepEqual([beacon.status, beacon.body], [200, { counted: true }], beacon.text);
      assert.equal(cacheStatus(beacon), null, 'a POST never touches the cache');
    }
    // Without JavaScript, the noscript image: a GET, but no-store, so never answered from the cache.
    for (let i = 0; i < 2; i++) {
      const image = await reader.get('/api/impression', { ...browser, referer: `${nginx.url}/` });
      assert.equal(image.status, 200);
      assert.equal(cacheStatus(image), 'MISS');
    }
    assert.equal(impressionsSoFar(board), before + 5);
  });
});

describe('deploy/nginx.conf never caches an answer that sets a cookie', { skip, timeout: hangBoundMs }, () => {
  let upstream: Server;
  let nginx: RunningNginx;
  const reached: string[] = [];

  before(async () => {
    // An upstream that marks everything shared, one path also setting a cookie: nginx's rule, not the board's, is tested.
    upstream = createServer((req, res) => {
      reached.push(req.url!);
      res.writeHead(200, {
        'Content-Type': 'text/plain',
        'Cache-Control': 'public, s-maxage=60',
        ...(req.url === '/sets-cookie' ? { 'Set-Cookie': 'probe=1; Path=/' } : {}),
      });
      res.end(`answer ${reached.length}`);
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    nginx = await startNginx((upstream.address() as AddressInfo).port);
  });
  after(async () => {
    await nginx?.stop();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  test('the same answer without Set-Cookie is kept; with it, every request reaches the board', async () => {
    const client = new Client(nginx.url);
    const statuses: (string | null)[] = [];
    for (const path of ['/plain', '/plain', '/sets-cookie', '/sets-cookie', '/sets-cookie'])
      statuses.push(cacheStatus(await client.get(path)));
    assert.deepEqual(statuses, ['MISS', 'HIT', 'MISS', 'MISS', 'MISS']);
    assert.deepEqual(reached, ['/plain', '/sets-cookie', '/sets-cookie', '/sets-cookie']);
  });
});

describe('a view notice never holds a reader for long: a board that never answers it', {
  skip,
  timeout: hangBoundMs,
}, () => {
  let upstream: Server;
  let nginx: RunningNginx;
  const held: ServerResponse[] = [];

  before(async () => {
    // An upstream that answers pages (shared, so nginx keeps them) and never answers a view notice.
    upstream = createServer((req, res) => {
      if (req.headers['x-board-view'] === 'mirror') return void held.push(res);
      res.writeHead(200, { 'Content-Type': 'text/html', 'Cache-Control': 'public, s-maxage=60' });
      res.end('<p>Die Seite</p>');
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    nginx = await startNginx((upstream.address() as AddressInfo).port);
  });
  after(async () => {
    await nginx?.stop();
    for (const res of held) res.destroy();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  test('every reader on one keep-alive connection gets the page while the board holds every notice', async () => {
    // One keep-alive connection for all requests, as a browser reuses one (an undici Client is one connection).
    const connection = new Connection(nginx.url);
    try {
      const reader = new Client(nginx.url, undefined, connection);
      const statuses: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const answer = await reader.get('/e/1', curl);
        assert.equal(answer.text, '<p>Die Seite</p>');
        statuses.push(cacheStatus(answer));
        await eventually(`notice ${i + 1} reached the board`, () => held.length === i + 1);
      }
      assert.deepEqual(statuses, ['MISS', 'HIT', 'HIT']);
      assert.ok(
        held.every((res) => !res.headersSent),
        'the board answered no notice: nginx gave up on each (deploy/nginx.conf), the reader never waited for one',
      );
    } finally {
      await connection.close();
    }
  });
});

/**
 * Forwards to the board, with the figures of its Cache-Control divided by s-maxage's (5, 15, 15 →
 * 1, 3, 3): the board's header as it is, on a clock five times as fast, so that the test waits
 * seconds instead of the 20 a copy may live.
 */
function scaledBoard(boardUrl: string): Server {
  return createServer((req, res) => {
    const forwarded = request(`${boardUrl}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      const control = answer.headers['cache-control'];
      const headers = { ...answer.headers };
      if (control)
        headers['cache-control'] = control.replace(
          /\b(s-maxage|stale-while-revalidate|stale-if-error)=(\d+)/g,
          (_, name: string, seconds: string) =>
            `${name}=${Math.max(1, Math.round(Number(seconds) / sharedCache.seconds))}`,
        );
      res.writeHead(answer.statusCode!, headers);
      answer.pipe(res);
    });
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
}

describe('a removed page never comes back from the cache while the board is down', {
  skip,
  timeout: hangBoundMs,
}, () => {
  let board: TestBoard;
  let forwarder: Server;
  let nginx: RunningNginx;
  /** Stops the board and its forwarder (connection refused from then on), once. */
  let stopped: Promise<void> | undefined;
  const stopBoard = () => {
    stopped ??= (async () => {
      forwarder?.closeAllConnections();
      await new Promise((resolve) => forwarder?.close(resolve));
      await board?.close();
    })();
    return stopped;
  };

  before(async () => {
    board = await startProxiedBoard();
    forwarder = scaledBoard(board.url);
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
    nginx = await startNginx((forwarder.address() as AddressInfo).port);
  });
  after(async () => {
    await nginx?.stop();
    await stopBoard();
  });

  test('cached, removed (410), the board stopped: nginx answers the copy at most until its bound, then never again', async () => {
    const author = await member(board, 'Autorin Weg');
    const mod = await moderator(board, 'Mod Weg');
    const secret = 'Dieser Text wird entfernt.';
    const pid = await post(author, secret);
    const reader = new Client(nginx.url);
    const first = await reader.get(`/e/${pid}`, curl);
    assert.deepEqual([first.status, cacheStatus(first)], [200, 'MISS']);
    assert.match(first.text, new RegExp(secret));
    assert.equal(cacheStatus(await reader.get(`/e/${pid}`, curl)), 'HIT');
    assert.equal((await mod.post(`/api/mod/entry/${pid}/remove`, { reason: 'Spam' })).status, 200);
    assert.equal((await board.client().get(`/e/${pid}`)).status, 410);
    await stopBoard();
    // Up to the copy's bound nginx may answer it (STALE); after it, never again. Polled every
    // 200 ms, at most 100 times: on the old configuration the copy came back for 10 minutes.
    const seen: string[] = [];
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await reader.get(`/e/${pid}`, curl);
      seen.push(`${answer.status} ${cacheStatus(answer)}`);
      if (!answer.text.includes(secret)) break;
      await sleep(200);
    }
    assert.match(seen.at(-1)!, /^502 /, `the copy came back until the end: ${seen.join(', ')}`);
    for (let i = 0; i < 5; i++) {
      const later = await reader.get(`/e/${pid}`, curl);
      assert.equal(later.status, 502);
      assert.doesNotMatch(later.text, new RegExp(secret));
    }
  });
});
