import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  assertDocumented,
  imageFixture,
  limitsOff,
  mediaFiles,
  member,
  post,
  startBoard,
  startProxiedBoard,
  useBoard,
  eventually,
  emptyFolder,
} from '../helpers.ts';
import { answer, page, previewEnv, previewRow, queuedJobs, startFakeSite, type FakeSite } from '../helpers/previews.ts';

/**
 * Link previews end to end: a real board whose fetcher may reach only 127.0.0.1 and the fake
 * site's port, entries posted through the API, previews checked in the API and on disk.
 */

const videoId = 'dQw4w9WgXcQ';
const watchUrl = `https://www.youtube.com/watch?v=${videoId}`;

/** A route that holds its answer until `open()` is called: lets a test look before the record exists. */
function gate() {
  let release: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  return {
    open: () => release(),
    route: (body: string) => (_req: unknown, res: import('node:http').ServerResponse) => {
      void opened.then(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body));
    },
  };
}

let site: FakeSite;
const feedGate = gate();

function entryIn(list: any[], pid: number): any {
  const entry = list.find((e) => e.pid === pid);
  assert.ok(entry, `entry ${pid} in the list`);
  return entry;
}

async function feedEntry(pid: number): Promise<any> {
  const feed = await t.members.alice.get('/api/entry/feed/0');
  assert.equal(feed.status, 200, feed.text);
  assertDocumented(feed);
  return entryIn(feed.body, pid);
}

/** Posts `content` and waits until its link's record is stored (fetched or failed). */
async function postAndWait(content: string, url: string, client = t.members.alice): Promise<number> {
  const pid = await post(client, content);
  await eventually(`preview record of ${url}`, () => {
    const row = previewRow(t.board, url);
    return row && (row.fetched_at > 0 || row.failed_at > 0) && !queuedJobs(t.board).includes(url) ? row : undefined;
  });
  return pid;
}

const t = useBoard({
  prepare: async () => {
    const photo = await imageFixture({ width: 800, height: 600 });
    const windows1252 = Buffer.from(
      '<html><head><title>Gr\xfc\xdfe aus K\xf6ln \x96 \x84Zitat\x93 f\xfcr 5 \x80</title></head></html>',
      'latin1',
    );
    site = await startFakeSite({
      '/og': answer(
        page(`<meta property="og:title" content="An OpenGraph title">
      <meta property="og:site_name" content="Fake Site"><meta property="og:image" content="/img/photo.jpg">
      <title>Not this one</title>`),
      ),
      '/img/photo.jpg': answer(photo, 'image/jpeg'),
      '/img/tiny.jpg': answer(await imageFixture({ width: 100, height: 50 }), 'image/jpeg'),
      '/img/broken.jpg': answer('not an image at all', 'image/jpeg'),
      '/title-only': answer(page('<title>  Just a   title </title>')),
      '/latin': answer(windows1252, 'text/html; charset=windows-1252'),
      '/latin-meta': answer(Buffer.concat([Buffer.from('<meta charset="windows-1252">'), windows1252]), 'text/html'),
      '/entities': answer(page('<title>Fish &amp; Chips &ndash; &quot;caf&eacute;&quot; &#128031;</title>')),
      '/relative/article': answer(
        page('<meta property="og:title" content="Relative image"><meta property="og:image" content="../img/tiny.jpg">'),
      ),
      '/broken-image': answer(
        page('<meta property="og:title" content="Broken image"><meta property="og:image" content="/img/broken.jpg">'),
      ),
      '/huge': answer(
        page(`<meta property="og:title" content="Huge page"><script>${'x'.repeat(2 * 1024 * 1024)}</script>`),
      ),
      '/slow': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><head>'); // the rest never comes
      },
      '/challenge': answer(page('<title>Just a moment...</title>'), 'text/html', 200),
      '/no-title': answer(page('<meta name="description" content="nothing">')),
      '/gated': feedGate.route(page('<title>Gated page</title>')),
      '/first': answer(page('<title>First link</title>')),
      '/second': answer(page('<title>Second link</title>')),
      '/oembed': (req, res) => {
        const asked = new URL(req.url!, 'http://x').searchParams;
        if (asked.get('url') !== watchUrl || asked.get('format') !== 'json') {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('Bad Request');
          return;
        }
        const body = JSON.stringify({
          type: 'video',
          title: 'Never Gonna  Give You Up',
          author_name: 'Rick Astley',
          thumbnail_url: site.url('/img/photo.jpg'),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      },
      '/oembed-text': answer('Not Found', 'application/json'),
    });
  },
  env: () => previewEnv([site.port], { BOARD_YOUTUBE_OEMBED: site.url('/oembed') }),
  start: { preview: { timeoutMs: 500 } },
  members: ['alice'],
});
after(() => site.close());

describe('pages', () => {
  test('an OpenGraph page gives title, site and a local thumbnail of at most 320 px', async () => {
    const url = site.url('/og');
    const pid = await postAndWait(`look at this ${url} !`, url);
    const entry = await feedEntry(pid);
    assert.deepEqual(Object.keys(entry.preview), ['url', 'kind', 'title', 'site', 'thumb']);
    assert.equal(entry.preview.url, url);
    assert.equal(entry.preview.kind, 'page');
    assert.equal(entry.preview.title, 'An OpenGraph title');
    assert.equal(entry.preview.site, 'Fake Site');
    assert.match(entry.preview.thumb, /^preview\/[0-9a-f]{32}\.jpg$/);
    const file = join(t.board.config.mediaDir, entry.preview.thumb);
    const meta = await sharp(readFileSync(file)).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.deepEqual([meta.width, meta.height], [320, 240]);
    const served = await t.members.alice.get(`/static/media/${entry.preview.thumb}`);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/jpeg');
    assert.equal(site.lastUserAgent, `BoardPreview/1.0 (+${t.board.config.origin})`);
  });

  test('the preview shows in the thread, its replies, `latest` and the user feed', async () => {
    const url = site.url('/og');
    const root = await post(t.members.alice, 'a thread without a link');
    const reply = await post(t.members.alice, `reply with ${url}`, root); // the record exists already: shown at once
    const thread = await t.members.alice.get(`/api/entry/${root}/thread`);
    assertDocumented(thread);
    assert.equal(thread.body.entry.preview, undefined);
    assert.equal(entryIn(thread.body.replies, reply).preview.title, 'An OpenGraph title');
    const own = await t.members.alice.get(`/api/entry/${reply}/thread`);
    assertDocumented(own);
    assert.equal(own.body.entry.preview.title, 'An OpenGraph title');
    assert.equal(own.body.ancestors[0].preview, undefined);
    assert.equal((await feedEntry(root)).latest.entry.preview.title, 'An OpenGraph title');
    const userFeed = await t.members.alice.get('/api/u/alice/feed/0');
    assertDocumented(userFeed);
    assert.equal(entryIn(userFeed.body, reply).preview.title, 'An OpenGraph title');
  });

  test('a page with only <title>: that title, the host as site, no thumbnail', async () => {
    const url = site.url('/title-only');
    const pid = await postAndWait(url, url);
    const { preview } = await feedEntry(pid);
    assert.deepEqual(preview, { url, kind: 'page', title: 'Just a title', site: '127.0.0.1', thumb: '' });
  });

  test('a windows-1252 page is decoded right, by header or by <meta>', async () => {
    for (const path of ['/latin', '/latin-meta']) {
      const url = site.url(path);
      const pid = await postAndWait(url, url);
      assert.equal((await feedEntry(pid)).preview.title, 'Grüße aus Köln – „Zitat“ für 5 €', path);
    }
  });

  test('entities are decoded', async () => {
    const url = site.url('/entities');
    const pid = await postAndWait(url, url);
    assert.equal((await feedEntry(pid)).preview.title, 'Fish & Chips – "café" 🐟');
  });

  test("a relative og:image is fetched from the page's address; a small image is not enlarged", async () => {
    const url = site.url('/relative/article');
    const pid = await postAndWait(url, url);
    const { preview } = await feedEntry(pid);
    assert.ok(site.requests.includes('/img/tiny.jpg'));
    const meta = await sharp(join(t.board.config.mediaDir, preview.thumb)).metadata();
    assert.deepEqual([meta.width, meta.height], [100, 50]);
  });

  test('an image that does not decode leaves a preview without thumbnail', async () => {
    const url = site.url('/broken-image');
    const pid = await postAndWait(url, url);
    const { preview } = await feedEntry(pid);
    assert.equal(preview.title, 'Broken image');
    assert.equal(preview.thumb, '');
  });

  test('a huge page is cut at the limit and still parsed from its head', async () => {
    const url = site.url('/huge');
    const pid = await postAndWait(url, url);
    assert.equal((await feedEntry(pid)).preview.title, 'Huge page');
  });

  test('a page that never finishes times out: no preview, the failure is remembered', async () => {
    const url = site.url('/slow');
    const pid = await postAndWait(url, url);
    assert.equal((await feedEntry(pid)).preview, undefined);
    const row = previewRow(t.board, url)!;
    assert.ok(row.failed_at > 0);
    assert.equal(row.title, '');
  });

  test('a bot-challenge page is not stored as a preview', async () => {
    const url = site.url('/challenge');
    const pid = await postAndWait(url, url);
    assert.equal((await feedEntry(pid)).preview, undefined);
    assert.ok(previewRow(t.board, url)!.failed_at > 0);
  });

  test('a page without a title has no preview', async () => {
    const url = site.url('/no-title');
    const pid = await postAndWait(url, url);
    assert.equal((await feedEntry(pid)).preview, undefined);
    assert.equal(previewRow(t.board, url)!.fetched_at > 0, true);
  });

  test('entries without a link queue nothing and have no preview', async () => {
    const pid = await post(t.members.alice, 'no link, just words');
    assert.equal((await feedEntry(pid)).preview, undefined);
    assert.deepEqual(queuedJobs(t.board), []);
  });
});

describe('the video site', () => {
  test('every URL form is one record, fetched by one oEmbed request', async () => {
    const forms = [
      `https://youtu.be/${videoId}`,
      `https://www.youtube.com/watch?v=${videoId}&t=42`,
      `https://www.youtube.com/shorts/${videoId}`,
      `https://www.youtube.com/embed/${videoId}`,
      `https://m.youtube.com/watch?v=${videoId}`,
      `https://music.youtube.com/watch?v=${videoId}`,
    ];
    const pids: number[] = [];
    for (const form of forms) pids.push(await post(t.members.alice, `video: ${form}`));
    await eventually('the video record', () => previewRow(t.board, watchUrl)?.title);
    const feed = (await t.members.alice.get('/api/entry/feed/0')).body;
    for (const pid of pids) {
      assert.deepEqual(
        { ...entryIn(feed, pid).preview, thumb: '' },
        { url: watchUrl, kind: 'youtube', title: 'Never Gonna Give You Up', site: 'Rick Astley', thumb: '' },
      );
    }
    assert.equal(new Set(pids.map((pid) => entryIn(feed, pid).preview.thumb)).size, 1);
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM previews WHERE url LIKE ?', '%youtube%'), 1);
    assert.equal(site.requests.filter((r) => r.startsWith('/oembed?')).length, 1);
  });
});

describe('a 200 answer of oEmbed in plain text', () => {
  const text = useBoard({
    env: () => previewEnv([site.port], { BOARD_YOUTUBE_OEMBED: site.url('/oembed-text') }),
    start: { preview: { timeoutMs: 500 } },
  });

  test('is a failed fetch, not a crash', async () => {
    const bob = await member(text.board, 'bob');
    const pid = await post(bob, `https://youtu.be/${videoId}`);
    await eventually(
      'the failure',
      () =>
        text.board.app.services.db.one<{ failed_at: number }>('SELECT failed_at FROM previews WHERE url = ?', watchUrl)
          ?.failed_at,
    );
    const feed = await bob.get('/api/entry/feed/0');
    assert.equal(entryIn(feed.body, pid).preview, undefined);
    assert.ok(text.board.logs.some((line) => line.includes('not a JSON object')));
  });
});

describe('refresh rules', () => {
  test('the feed shows a preview right after its record is stored (cached pages are dropped)', async () => {
    const url = site.url('/gated');
    const pid = await post(t.members.alice, url);
    assert.equal((await feedEntry(pid)).preview, undefined); // the feed page is now cached without it
    assert.equal((await t.members.alice.get(`/api/entry/${pid}/thread`)).body.entry.preview, undefined);
    feedGate.open();
    await eventually('the gated record', () => previewRow(t.board, url)?.title);
    assert.equal((await feedEntry(pid)).preview.title, 'Gated page');
    assert.equal((await t.members.alice.get(`/api/entry/${pid}/thread`)).body.entry.preview.title, 'Gated page');
  });

  test('an edit re-queues: a new link gets its preview, no link drops it', async () => {
    const first = site.url('/first');
    const second = site.url('/second');
    const pid = await postAndWait(`first ${first}`, first);
    assert.equal((await feedEntry(pid)).preview.title, 'First link');
    const edited = await t.members.alice.post(`/api/entry/${pid}/edit`, { content: `now ${second}` });
    assert.equal(edited.status, 200, edited.text);
    await eventually('the second preview', async () => (await feedEntry(pid)).preview?.title === 'Second link');
    await t.members.alice.post(`/api/entry/${pid}/edit`, { content: 'no link any more' });
    assert.equal((await feedEntry(pid)).preview, undefined);
  });

  test('a deleted entry shows no preview', async () => {
    const url = site.url('/first');
    const pid = await post(t.members.alice, url);
    assert.equal((await feedEntry(pid)).preview.title, 'First link');
    const reply = await post(t.members.alice, 'keeps the thread in the feed', pid);
    assert.equal((await t.members.alice.post(`/api/entry/${pid}/delete`)).status, 200);
    const entry = await feedEntry(pid);
    assert.equal(entry.deleted, 1);
    assert.equal(entry.preview, undefined);
    assert.equal(entry.latest.entry.pid, reply);
  });

  test('a fresh record is not fetched again; after 30 days it is, and the old thumbnail is removed', async () => {
    const url = site.url('/og');
    const oldThumb = previewRow(t.board, url)!.thumb;
    const before = site.requests.filter((r) => r === '/og').length;
    await post(t.members.alice, `again ${url}`);
    assert.deepEqual(queuedJobs(t.board), []);
    t.board.clock.advance(30 * 86_400);
    await postAndWait(`a month later ${url}`, url);
    assert.equal(site.requests.filter((r) => r === '/og').length, before + 1);
    const newThumb = previewRow(t.board, url)!.thumb;
    assert.notEqual(newThumb, oldThumb);
    // the old file goes right after the new record is committed, never before
    await eventually('the old thumbnail to be removed', () => !existsSync(join(t.board.config.mediaDir, oldThumb)));
    assert.ok(mediaFiles(t.board).includes(newThumb));
  });

  test('a failed link is retried no sooner than a day later', async () => {
    const url = site.url('/challenge');
    const failedAt = previewRow(t.board, url)!.failed_at;
    t.board.clock.set(failedAt + 86_399);
    await post(t.members.alice, `still ${url}`);
    assert.deepEqual(queuedJobs(t.board), []);
    t.board.clock.set(failedAt + 86_400);
    await postAndWait(`a day later ${url}`, url);
    assert.equal(previewRow(t.board, url)!.failed_at, failedAt + 86_400);
  });
});

describe('the queue', () => {
  test('survives a restart: a job in flight at shutdown is done by the next server', async () => {
    const dataDir = emptyFolder('board-test-');
    const held = gate();
    const restartSite = await startFakeSite({ '/held': held.route(page('<title>Held page</title>')) });
    const env = previewEnv([restartSite.port]);
    try {
      const first = await startBoard(env, { dataDir, preview: { timeoutMs: 60_000 } });
      const carol = await member(first, 'carol');
      const url = restartSite.url('/held');
      const pid = await post(carol, url);
      await eventually('the fetch to start', () => restartSite.requests.length > 0);
      await first.close(); // must not wait for the held page
      assert.deepEqual(first.app.services.db.raw.open, false);

      held.open();
      const second = await startBoard(env, { dataDir, preview: { timeoutMs: 5_000 } });
      try {
        const row = await eventually('the record after the restart', () => previewRow(second, url)?.title);
        assert.equal(row, 'Held page');
        const feed = await second.client().get('/api/entry/feed/0');
        assert.equal(entryIn(feed.body, pid).preview.title, 'Held page');
        assert.deepEqual(queuedJobs(second), []);
      } finally {
        await second.close();
      }
    } finally {
      await restartSite.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('with BOARD_PREVIEW=0 nothing is queued or fetched', async () => {
    const off = await startProxiedBoard(limitsOff);
    try {
      const dave = await member(off, 'dave');
      const pid = await post(dave, site.url('/og'));
      assert.deepEqual(queuedJobs(off), []);
      assert.equal(off.app.services.previews, undefined);
      const entry = entryIn((await dave.get('/api/entry/feed/0')).body, pid);
      assert.equal(entry.preview, undefined);
    } finally {
      await off.close();
    }
  });
});
