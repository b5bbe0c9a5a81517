import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DomUtils } from 'htmlparser2';
import { savePreview } from '../../lib/preview/store.ts';
import { impressionsSoFar } from '../helpers/atom.ts';
import { assertOnlyShellScript, byClass, drawnPage as page, textOf } from '../helpers/pages.ts';
import { assertDocumented, imageFixture, limitsOff, post, useBoard, visitor } from '../helpers.ts';
import { responsesOf } from '../../lib/http/response-cache.ts';

/** docs/API.md "Pages without JavaScript": the public pages hold their content as HTML. */

const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)> & "quotes" 'too'`;

describe('public pages without JavaScript', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mod'] });

  test('/: threads with author, German date, linked text, image alt, votes, replies, preview card', async () => {
    const { Anna, Bert } = t.members;
    const image = await Anna.postMultipart(
      '/api/entry/create',
      { content: 'Der Markt heute, mehr auf https://example.org/markt.', alt: 'Gemüsestand im Regen' },
      [{ name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) }],
    );
    assert.equal(image.status, 201, image.text);
    const pid = image.body.pid as number;
    const reply = await post(Bert, 'Schöne Tomaten!', pid);
    assert.equal((await Bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' })).status, 200);
    const db = t.board.app.services.db;
    savePreview(
      db,
      { url: 'https://example.org/markt', kind: 'page', title: `Markt ${hostile}`, site: 'example.org', thumb: '' },
      t.board.clock.now(),
    );

    const home = await page(t.board, '/');
    const card = home.all((el) => el.name === 'article' && el.attribs.id === `e${pid}`)[0]!;
    assert.ok(card, 'the thread is on the page');
    const text = textOf(card);
    assert.match(text, /Anna/);
    assert.match(text, /Der Markt heute, mehr auf https:\/\/example\.org\/markt \./);
    const time = DomUtils.findOne((el) => el.name === 'time', card.children)!;
    assert.match(time.attribs.datetime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    assert.match(
      DomUtils.textContent(time),
      /^\d{1,2}\. (Januar|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember) \d{4} um \d{2}:\d{2}$/,
    );
    const link = DomUtils.findOne((el) => el.name === 'a' && byClass('external')(el), card.children)!;
    assert.equal(link.attribs.href, 'https://example.org/markt');
    assert.equal(link.attribs.rel, 'nofollow noopener ugc');
    const img = DomUtils.findOne((el) => el.name === 'img' && byClass('entry-image')(el), card.children)!;
    assert.equal(img.attribs.alt, 'Gemüsestand im Regen');
    assert.equal(img.attribs.src, `/static/media/${image.body.filepath}`);
    assert.match(text, /Ja 1 .*Nein 0/);
    assert.match(text, /1 Antwort ansehen/);
    const preview = DomUtils.findOne((el) => byClass('preview-title')(el), card.children)!;
    assert.equal(DomUtils.textContent(preview), `Markt ${hostile}`, 'the preview title is text');
    // The latest reply hangs below its thread.
    assert.ok(home.all((el) => el.attribs.id === `e${reply}`).length === 1);
    assert.match(home.main, /Schöne Tomaten!/);
    assertOnlyShellScript(home);
    assert.deepEqual(home.links('canonical'), [`${t.board.config.origin}/`]);
  });

  test('hostile text in entries, search words and moderation reasons stays text', async () => {
    const { Anna, Mod } = t.members;
    const pid = await post(Anna, `Vorsicht ${hostile}`);
    for (const path of ['/', `/e/${pid}`, '/u/Anna', `/suche?q=${encodeURIComponent(`Vorsicht ${hostile}`)}`]) {
      const p = await page(t.board, path, path.startsWith('/suche') ? 200 : 200);
      assertOnlyShellScript(p);
      assert.ok(!p.text.includes('<script>alert'), `${path}: no raw markup`);
      assert.ok(p.text.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'), `${path}: escaped`);
    }
    const removed = await post(Anna, 'Wird entfernt.');
    assert.equal((await Mod.post(`/api/mod/entry/${removed}/remove`, { reason: hostile })).status, 200);
    const log = await page(t.board, '/modlog');
    assertOnlyShellScript(log);
    assert.ok(log.main.includes(`Grund: „${hostile}“`), log.main.slice(0, 300));
    assert.ok(log.main.includes(`Beitrag #${removed} von Anna entfernt`));
  });

  test('/e/{pid}: ancestors, the entry, replies; canonical; a gone entry is marked or 410', async () => {
    const { Anna, Bert } = t.members;
    const root = await post(Anna, 'Wurzel des Fadens.');
    const middle = await post(Bert, 'Die Mitte.', root);
    const leaf = await post(Anna, 'Ein Blatt.', middle);
    const thread = await page(t.board, `/e/${middle}`);
    assert.match(thread.main, /Neueste Anna: Wurzel des Fadens\. Bert: Die Mitte\./, 'the breadcrumb');
    assert.match(thread.main, /Antwort von Bert/);
    assert.match(thread.main, /1 Antwort A Anna .* Ein Blatt\./);
    assert.deepEqual(thread.links('canonical'), [`${t.board.config.origin}/e/${middle}`]);
    assert.ok(thread.all((el) => el.name === 'a' && el.attribs.href === `/e/${root}`).length > 0);
    assert.ok(thread.all((el) => el.name === 'a' && el.attribs.href === '/u/Bert').length > 0);

    assert.equal((await Bert.post(`/api/entry/${middle}/delete`)).status, 200);
    const marked = await page(t.board, `/e/${middle}`);
    assert.doesNotMatch(marked.text, /Die Mitte\./, 'the text is gone from its page');
    assert.match(marked.main, /Dieser Beitrag wurde gelöscht\./);
    assert.match(marked.main, /Ein Blatt\./, 'the live reply still shows');
    assert.doesNotMatch((await page(t.board, `/e/${root}`)).text, /Die Mitte\./);

    assert.equal((await Anna.post(`/api/entry/${leaf}/delete`)).status, 200);
    const gone = await page(t.board, `/e/${middle}`, 410);
    assert.match(gone.main, /Dieser Beitrag wurde gelöscht\./);
    await page(t.board, `/e/${leaf}`, 410);
    await page(t.board, '/e/99999999', 404);
    await page(t.board, '/e/abc', 404);
  });

  test('a removed entry leaves every page: feed, thread, profile, search', async () => {
    const { Bert, Mod } = t.members;
    const top = await post(Bert, 'Entfernbares Zebrathema.');
    const reply = await post(Bert, 'Zebraantwort bleibt nicht.', top);
    const paths = ['/', `/e/${top}`, '/u/Bert', '/suche?q=zebra'];
    for (const path of paths) assert.match((await page(t.board, path)).main, /Zebraantwort/, path);
    assert.equal((await Mod.post(`/api/mod/entry/${reply}/remove`, { reason: 'Spam' })).status, 200);
    for (const path of paths) {
      const after = await page(t.board, path);
      // The text as read too: a search page marks its match inside the word (Zebra<mark>…).
      for (const text of [after.text, after.main]) assert.doesNotMatch(text, /Zebraantwort/, path);
    }
    const own = await page(t.board, `/e/${reply}`, 410);
    assert.match(own.main, /von der Moderation entfernt: Spam/);
  });

  test('/u/{username}: profile, entries, paging links; /stats and /modlog show their content', async () => {
    const { Anna } = t.members;
    const profile = await page(t.board, '/u/anna');
    assert.match(profile.main, /^A Anna Mitglied seit \d{1,2}\. \S+ \d{4} Beiträge/);
    assert.deepEqual(profile.links('canonical'), [`${t.board.config.origin}/u/Anna`]);
    await page(t.board, '/u/Niemand', 404);
    for (let i = 0; i < 21; i++) await post(Anna, `Füllbeitrag ${i}.`);
    const first = await page(t.board, '/u/Anna');
    assert.ok(first.links('next').includes(`${t.board.config.origin}/u/Anna?seite=2`), 'rel=next in the head');
    assert.ok(first.links('next').includes('/u/Anna?seite=2'), 'a link to the next page');
    const second = await page(t.board, '/u/Anna?seite=2');
    assert.ok(second.links('prev').includes('/u/Anna'));
    assert.deepEqual(second.links('canonical'), [`${t.board.config.origin}/u/Anna?seite=2`]);
    const stats = await page(t.board, '/stats');
    assert.match(stats.main, /Mitglieder 3 Beiträge \d+/);
    assert.match(stats.main, /Die letzten 30 Tage/);
    const home = await page(t.board, '/');
    assert.ok(home.links('next').includes('/?seite=2'));
    assert.match((await page(t.board, '/?seite=2')).main, /^Neueste Themen, Seite 2/);
  });

  test('/suche: the form works without scripts; refusals are pages with the form', async () => {
    const empty = await page(t.board, '/suche');
    const form = empty.all((el) => el.name === 'form' && el.attribs.action === '/suche');
    assert.ok(form.every((f) => f.attribs.method === 'get') && form.length >= 1);
    const long = await page(t.board, `/suche?q=${'a'.repeat(201)}`, 400);
    assert.match(long.main, /Suchbegriff/);
    await page(t.board, '/suche?q=x&user=Niemand', 404);
    const found = await page(t.board, '/suche?q=Wurzel');
    assert.match(found.main, /Wurzel des Fadens\./);
    assert.equal(
      found.all((el) => el.name === 'meta' && el.attribs.name === 'robots')[0]?.attribs.content,
      'noindex, follow',
    );
  });

  test('pages come from the response cache and follow every write: reply, vote, edit, rename', async () => {
    const { Anna, Bert } = t.members;
    const pid = await post(Anna, 'Zwischengespeichert.');
    const tally = responsesOf(t.board.app.services.db).tally;
    await page(t.board, `/e/${pid}`);
    const hits = tally.pageHits;
    await page(t.board, `/e/${pid}`);
    assert.equal(tally.pageHits, hits + 1, 'the second read is a hit');
    await post(Bert, 'Neue Antwort.', pid);
    assert.match((await page(t.board, `/e/${pid}`)).main, /Neue Antwort\./);
    assert.match((await page(t.board, '/')).main, /Ja 0 .*Nein 0/);
    assert.equal((await Bert.post(`/api/entry/${pid}/vote`, { mode: 'no' })).status, 200);
    const card = (await page(t.board, `/e/${pid}`)).all((el) => el.attribs.id === `e${pid}`)[0]!;
    assert.match(textOf(card), /Ja 0 .*Nein 1/, 'a vote shows at once');
    assert.equal((await Anna.post(`/api/entry/${pid}/edit`, { content: 'Neu gefasst.' })).status, 200);
    assert.match((await page(t.board, '/')).main, /Neu gefasst\./);
    assert.equal((await Bert.post('/api/user/rename', { user: 'Berta' })).status, 200);
    assert.match((await page(t.board, `/e/${pid}`)).main, /Berta/);
    assert.equal((await Bert.post('/api/user/rename', { user: 'Bert' })).status, 200);
  });

  /** The page's beacon as the front end would send it, were the page carrying it (BOARD_IMPRESSION_BEACON=1). */
  const beacon = async (path: string, headers: Record<string, string> = {}) => {
    const answer = await visitor(t.board).post('/api/impression', { page: path }, headers);
    assert.equal(answer.status, 200, path);
    return (answer.body as { counted: boolean }).counted;
  };

  test('impressions: the page GETs of /, /e/{pid} and /u/{username} count one each; /suche, /modlog, /stats, HEAD and the beacon none', async () => {
    const pid = await post(t.members.Anna, 'Gezählt.');
    const before = impressionsSoFar(t.board);
    for (const path of ['/', `/e/${pid}`, '/u/Anna']) await page(t.board, path);
    assert.equal(impressionsSoFar(t.board), before + 3);
    for (const path of ['/suche?q=Gezählt', '/modlog', '/stats']) await page(t.board, path);
    assert.equal((await visitor(t.board).send('HEAD', '/', undefined)).status, 200);
    assert.equal(impressionsSoFar(t.board), before + 3);
    // Without BOARD_IMPRESSION_BEACON the pages carry no beacon, and one sent anyway counts nothing.
    for (const path of ['/', `/e/${pid}`, '/u/Anna']) assert.equal(await beacon(path), false, path);
    assert.equal(impressionsSoFar(t.board), before + 3);
  });

  test('a cached page leaves by the fast path and counts its impression as a drawn one does', async () => {
    await page(t.board, '/'); // drawn and kept
    const tally = responsesOf(t.board.app.services.db).tally;
    const hits = tally.pageHits;
    const logged = t.board.logs.length;
    const before = impressionsSoFar(t.board);
    for (let i = 0; i < 3; i++) await page(t.board, '/');
    assert.equal(tally.pageHits, hits + 3, 'from the cache');
    assert.deepEqual(
      t.board.logs.slice(logged).filter((line) => /^GET \/ 200 \d/.test(line)),
      [],
      'no pipeline line: the fast path answered',
    );
    assert.equal(impressionsSoFar(t.board), before + 3, 'the fast path counts each');
    const crawler = await visitor(t.board).get('/', { 'user-agent': 'Googlebot/2.1' });
    assert.equal(crawler.status, 200);
    assert.equal(tally.pageHits, hits + 4);
    assert.equal(impressionsSoFar(t.board), before + 3, 'a crawler counts none, as before');
  });
});

describe('robots.txt and the sitemap', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna'], moderators: ['Mod'] });

  const locs = (xml: string, tag: string) =>
    [...xml.matchAll(new RegExp(`<${tag}>\\s*<loc>([^<]+)</loc>`, 'g'))].map((m) => m[1]);

  test('robots.txt names the sitemap and keeps crawlers off the API and the search', async () => {
    const robots = await visitor(t.board).get('/robots.txt');
    assert.equal(robots.status, 200);
    assertDocumented(robots);
    assert.match(robots.headers.get('content-type')!, /^text\/plain/);
    const lines = robots.text.split('\n');
    for (const line of ['User-agent: *', 'Disallow: /api/', 'Disallow: /suche', 'Disallow: /n/'])
      assert.ok(lines.includes(line), line);
    assert.ok(lines.includes(`Sitemap: ${t.board.config.origin}/sitemap.xml`));
  });

  test('/sitemap.xml: live threads by last activity; removed and deleted ones leave it', async () => {
    const { Anna, Mod } = t.members;
    const origin = t.board.config.origin;
    const first = await post(Anna, 'Erstes Thema.');
    t.board.clock.advance(10);
    const second = await post(Anna, 'Zweites Thema.');
    const removed = await post(Anna, 'Wird entfernt.');
    const deleted = await post(Anna, 'Wird gelöscht.');
    t.board.clock.advance(10);
    await post(Anna, 'Eine Antwort holt das erste Thema nach oben.', first);
    assert.equal((await Mod.post(`/api/mod/entry/${removed}/remove`, { reason: 'Spam' })).status, 200);
    assert.equal((await Anna.post(`/api/entry/${deleted}/delete`)).status, 200);
    const answer = await visitor(t.board).get('/sitemap.xml');
    assert.equal(answer.status, 200);
    assertDocumented(answer);
    assert.match(answer.headers.get('content-type')!, /^application\/xml/);
    assert.match(answer.text, /<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
    assert.deepEqual(locs(answer.text, 'url'), [`${origin}/e/${first}`, `${origin}/e/${second}`]);
    assert.match(answer.text, /<lastmod>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/lastmod>/);
    const again = await visitor(t.board).get('/sitemap.xml', { 'If-None-Match': answer.headers.get('etag')! });
    assert.equal(again.status, 304);
    await page(t.board, '/sitemap/1.xml', 404);
  });

  test('past the per-file limit the sitemap is an index of files that hold every thread once', async () => {
    const { sitemapDocument, sitemapFile } = await import('../../lib/pages/sitemap.ts');
    const db = t.board.app.services.db;
    const origin = t.board.config.origin;
    for (let i = 0; i < 3; i++) await post(t.members.Anna, `Füllthema ${i}.`);
    const all = locs(sitemapDocument(db, origin).body.toString(), 'url');
    assert.equal(all.length, 5);
    const index = sitemapDocument(db, origin, 2).body.toString();
    assert.match(index, /<sitemapindex /);
    assert.deepEqual(
      locs(index, 'sitemap'),
      [1, 2, 3].map((n) => `${origin}/sitemap/${n}.xml`),
    );
    const files = [1, 2, 3].map((n) => locs(sitemapFile(db, origin, n, 2)!.body.toString(), 'url'));
    assert.deepEqual(
      files.map((f) => f.length),
      [2, 2, 1],
    );
    assert.deepEqual(files.flat(), all, 'the files together, in the same order');
    assert.equal(sitemapFile(db, origin, 4, 2), undefined);
  });
});

describe('first load', () => {
  const t = useBoard({ env: limitsOff });

  test('every page preloads the whole module graph of web/static, each module once', async () => {
    const { readFileSync } = await import('node:fs');
    const staticDir = new URL('../../web/static/', import.meta.url);
    for (const path of ['/', '/login', '/nirgends']) {
      const answer = await visitor(t.board).get(path);
      const preloaded = [
        ...answer.text.matchAll(/<link rel="modulepreload" href="\/static\/v\/[0-9a-f]{16}\/([^"]+)">/g),
      ].map((m) => m[1]!);
      assert.equal(new Set(preloaded).size, preloaded.length, 'each once');
      assert.ok(!preloaded.includes('main.js'), 'the entry has its <script>');
      // The closure, found here on its own: every relative import of main.js and of what it imports.
      const wanted = new Set<string>();
      const walk = (file: string) => {
        const source = readFileSync(new URL(file, staticDir), 'utf8');
        for (const [, spec] of source.matchAll(/^(?:import|export)[^'"]*?from '(\.{1,2}\/[^']+)'/gm)) {
          const target = new URL(spec!, new URL(file, staticDir)).pathname.slice(staticDir.pathname.length);
          if (!wanted.has(target)) {
            wanted.add(target);
            walk(target);
          }
        }
      };
      walk('main.js');
      assert.deepEqual(new Set(preloaded), wanted, path);
      assert.ok(preloaded.length > 30);
    }
    const one = await visitor(t.board).get('/static/app.js');
    assert.equal(one.status, 200);
  });

  test("the pages name the front end's files under its version, kept a year; another version's path and the plain one must ask again", async () => {
    const { readFileSync } = await import('node:fs');
    const page = await visitor(t.board).get('/');
    const named = [...page.text.matchAll(/(?:src|href)="(\/static\/[^"]+)"/g)].map((m) => m[1]!);
    const version = /^\/static\/v\/([0-9a-f]{16})\/main\.js$/.exec(
      named.find((path) => path.endsWith('/main.js'))!,
    )?.[1];
    assert.ok(version, `the script is versioned: ${named.join(', ')}`);
    assert.deepEqual(
      named.filter((path) => !path.startsWith(`/static/v/${version}/`)),
      [],
      'every file the page names is under the one version',
    );
    assert.ok(named.includes(`/static/v/${version}/app.css`));
    const source = readFileSync(new URL('../../web/static/app.js', import.meta.url), 'utf8');
    const current = await visitor(t.board).get(`/static/v/${version}/app.js`);
    assert.equal(current.status, 200);
    assert.equal(current.text, source);
    assert.equal(current.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const modules = await visitor(t.board).get(`/static/v/${version}/views/feed.js`);
    assert.equal(modules.status, 200, 'a module in a folder, as a relative import finds it');
    const earlier = await visitor(t.board).get('/static/v/0123456789abcdef/app.js');
    assert.equal(earlier.status, 200);
    assert.equal(earlier.text, source);
    assert.equal(earlier.headers.get('cache-control'), 'no-cache');
    assert.equal((await visitor(t.board).get('/static/app.js')).headers.get('cache-control'), 'no-cache');
    for (const path of [
      `/static/v/${version}/nirgends.js`,
      `/static/v/${version}/../app.js`,
      `/static/v/${version}/.hidden`,
    ])
      assert.equal((await visitor(t.board).get(path)).status, 404, path);
  });
});
