import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { eventually, limitsOff, post, rawRequest, useBoard, type RawAnswer } from '../helpers.ts';
import { responsesOf } from '../../lib/http/response-cache.ts';

/**
 * The drawn pages with a query (`?seite=N` of the feed, profiles and the moderation log, the
 * search) and a gone entry's 410 page leave by the fast path (lib/http/fast-path.ts,
 * lib/routes.ts `cacheQuery`): exactly as the pipeline answers
 * the same request, whoever asks (a visitor, a session cookie valid or not, a conditional
 * request); every other spelling of the query reaches the pipeline, which answers as it always
 * did; and a crawler walking the pages cannot grow the cache past its bounds.
 */

const t = useBoard({
  env: limitsOff,
  members: ['Anna', 'Bert'],
  moderators: ['Mod'],
  start: { timeouts: { hitLinesMs: 50 } },
});

/** The headers an answer carries, but Date: the clock may tick between two answers. */
const withoutDate = ({ date: _, ...headers }: Record<string, unknown>) => headers;

/** The pipeline logs each request it answers on a line of its own; the fast path only counts them. */
function pipelineLine(lines: string[], path: string): boolean {
  const logged = path.split('?')[0]!;
  return lines.some((line) => line.startsWith(`GET ${logged} `) && /\d+\.\dms$/.test(line));
}

/** `path` as it is answered now, and who answered it: the pipeline (a line of its own) or the fast path. */
async function ask(path: string, headers: Record<string, string> = {}): Promise<RawAnswer & { fast: boolean }> {
  const lines = t.board.logs.length;
  const answer = await rawRequest(t.board.url, 'GET', path, { host: 'board', ...headers });
  return { ...answer, fast: !pipelineLine(t.board.logs.slice(lines), path) };
}

const responses = () => responsesOf(t.board.app.services.db);

/** Entries enough for three pages of the feed and two of Anna's, a gone entry, and a removed one. */
const seeded = { gone: 0, removed: 0 };

describe('drawn pages with a query and 410 pages by the fast path', () => {
  before(async () => {
    for (let i = 0; i < 45; i++) await post(t.members.Anna, `Beitrag Nummer ${i} über Holunder.`);
    seeded.gone = await post(t.members.Anna, 'Gleich gelöscht.');
    assert.equal((await t.members.Anna.post(`/api/entry/${seeded.gone}/delete`)).status, 200);
    seeded.removed = await post(t.members.Anna, 'Gleich entfernt.');
    const removal = await t.members.Mod.post(`/api/mod/entry/${seeded.removed}/remove`, { reason: 'Spam' });
    assert.equal(removal.status, 200);
  });

  test('each page answers from the fast path exactly as the pipeline built it, for every kind of request', async () => {
    const session = `session=${t.members.Anna.cookie}`;
    const asking: [string, Record<string, string>][] = [
      ['a visitor', {}],
      ['a session', { cookie: session }],
      ['a moderator', { cookie: `session=${t.members.Mod.cookie}` }],
      ['an unknown session', { cookie: 'session=abc' }],
      ['another cookie', { cookie: 'theme=dark' }],
      ['a conditional request', { 'if-none-match': '*', 'if-modified-since': new Date().toUTCString() }],
    ];
    const paths = [
      '/?seite=2',
      '/?seite=3',
      '/?seite=101', // past the last thread: the empty page, as the front end's address names it
      '/u/Anna?seite=2',
      '/u/anna?seite=2', // looked up like a login: the same page
      '/modlog?seite=2',
      '/suche?q=Holunder',
      '/suche?q=Holunder&seite=2',
      '/suche?seite=2&q=Holunder', // the order does not matter
      '/suche?q=Holunder&user=Anna',
      '/suche?q=%C3%BCber+Holunder', // "über Holunder", as a form sends it
      '/suche?q=Nummer%207', // as encodeURIComponent writes it (the pager's links)
      `/e/${seeded.gone}`,
      `/e/${seeded.removed}`,
    ];
    for (const path of paths)
      for (const [who, headers] of asking) {
        responses().everythingChanged(); // drop every cached page: the next request is the pipeline's
        const built = await ask(path, headers);
        assert.equal(built.fast, false, `${path} for ${who}: the pipeline draws it`);
        const hits = responses().tally.pageHits;
        const cached = await ask(path, headers);
        assert.equal(cached.fast, true, `${path} for ${who}: the fast path answers`);
        assert.equal(responses().tally.pageHits, hits + 1, `${path} for ${who}: from the cache`);
        assert.equal(cached.status, built.status, `${path} for ${who}`);
        assert.equal(cached.text, built.text, `${path} for ${who}: the same page`);
        assert.deepEqual(withoutDate(cached.headers), withoutDate(built.headers), `${path} for ${who}: every header`);
      }
  });

  test("a gone entry's 410 page is kept and leaves by the fast path, never shared, logged as 410", async () => {
    // An entry no other test asks for: the log's counts of cached answers are this test's alone.
    const pid = await post(t.members.Anna, 'Auch gleich entfernt.');
    assert.equal((await t.members.Mod.post(`/api/mod/entry/${pid}/remove`, { reason: 'Spam' })).status, 200);
    const path = `/e/${pid}`;
    const drawn = await ask(path);
    assert.deepEqual([drawn.status, drawn.fast], [410, false]);
    assert.match(drawn.text, /von der Moderation entfernt: Spam/);
    assert.doesNotMatch(drawn.text, /Auch gleich entfernt\./);
    const lines = t.board.logs.length;
    for (const headers of [{}, { cookie: `session=${t.members.Anna.cookie}` }] as Record<string, string>[]) {
      const cached = await ask(path, headers);
      assert.equal(cached.fast, true);
      assert.equal(cached.status, 410);
      // An error status is never shared (docs/API.md "Shared caches"): a restore shows at once behind a cache too.
      assert.equal(cached.headers['cache-control'], 'no-cache');
      assert.equal(cached.headers.vary, undefined);
    }
    // Counted into lines per path and status (lib/http/hit-lines.ts; here every 50 ms).
    const logged = () => t.board.logs.slice(lines).filter((line) => line.startsWith(`GET ${path} `));
    const counted = () =>
      logged().reduce((sum, line) => sum + Number(/^GET \S+ 410 cached x(\d+)$/.exec(line)?.[1] ?? 0), 0);
    await eventually('the two cached 410 answers in the log', () => counted() === 2);
    assert.ok(
      logged().every((line) => / 410 cached x\d+$/.test(line)),
      'no line of their own',
    );
  });

  test("a write that changes a 410 page drops it at once: a refused reply does not, a moderator's restore does", async () => {
    const path = `/e/${seeded.removed}`;
    await ask(path);
    assert.equal((await ask(path)).fast, true, 'kept');
    // Nothing can be written below a gone entry: the refusal changes nothing, the page stays kept.
    const reply = await t.members.Anna.post('/api/entry/create', {
      content: 'Darunter?',
      reply_to: String(seeded.removed),
    });
    assert.deepEqual([reply.status, reply.body.error.code], [404, 'entry.not_found']);
    const still = await ask(path);
    assert.deepEqual([still.status, still.fast], [410, true]);
    assert.equal((await t.members.Mod.post(`/api/mod/entry/${seeded.removed}/restore`)).status, 200);
    const restored = await ask(path);
    assert.equal(restored.status, 200, 'the restore shows at once');
    assert.equal(restored.fast, false, 'drawn again');
    assert.match(restored.text, /Gleich entfernt\./);
    const kept = await ask(path);
    assert.deepEqual([kept.status, kept.fast], [200, true], 'the live page is kept in its place');
    // Removed again, with another reason: the 410 page says the new one.
    const again = await t.members.Mod.post(`/api/mod/entry/${seeded.removed}/remove`, { reason: 'Doppelt' });
    assert.equal(again.status, 200);
    const gone = await ask(path);
    assert.deepEqual([gone.status, gone.fast], [410, false]);
    assert.match(gone.text, /von der Moderation entfernt: Doppelt/);
    assert.doesNotMatch(gone.text, /Gleich entfernt\./);
  });

  test('a search page is kept under q and user apart: "Welt" by "Anna\\nHallo" never gets the page of "Hallo\\nWelt" by Anna', async () => {
    await post(t.members.Anna, 'Hallo Welt aus dem Garten.');
    const kept = '/suche?q=Hallo%0AWelt&user=Anna';
    const found = await ask(kept);
    assert.deepEqual([found.status, found.fast], [200, false]);
    assert.match(found.text, /aus dem Garten/);
    assert.equal((await ask(kept)).fast, true, 'kept');
    // Through the fast path's spelling, and through the pipeline's (q twice: the fast path leaves it).
    for (const other of ['/suche?q=Welt&user=Anna%0AHallo', '/suche?user=Anna%0AHallo&q=Welt&q=Welt']) {
      const answer = await ask(other);
      assert.equal(answer.status, 404, `${other}: no author of that name`);
      assert.equal(answer.fast, false, `${other}: drawn, not the kept page`);
      assert.doesNotMatch(answer.text, /aus dem Garten/, other);
      assert.match(answer.text, /Diese Person gibt es nicht\./, other);
    }
  });

  test('every other spelling of the query, HEAD and an unknown entry reach the pipeline, which answers as before', async () => {
    const pageOf = async (path: string) => {
      await ask(path); // kept
      return ask(path);
    };
    const first = await pageOf('/');
    const second = await pageOf('/?seite=2');
    const annasFirst = await pageOf('/u/Anna');
    const search = await pageOf('/suche?q=Holunder');
    const modlog = await pageOf('/modlog');
    assert.ok([first, second, annasFirst, search, modlog].every((answer) => answer.fast));
    // The pipeline reads a bad or missing seite as the first page, a repeated one by its first value.
    const cases: [string, RawAnswer][] = [
      ['/?seite=0', first],
      ['/?seite=1', first],
      ['/?seite=abc', first],
      ['/?seite=1e1', undefined as unknown as RawAnswer], // Number() reads it as 10: the pipeline's page 10
      ['/?seite=-2', first],
      ['/?seite=102', first], // past the last page the front end links: the first
      ['/?seite=1000000', first],
      ['/?seite=02', second],
      ['/?seite=2&seite=3', second],
      ['/?seite=2&x=1', second],
      ['/?x=1&seite=2', second],
      ['/?seite=2&', second],
      ['/?', first],
      ['/?x', first],
      ['/u/Anna?seite=0', annasFirst],
      ['/u/Anna?seite=abc', annasFirst],
      ['/modlog?seite=0', modlog],
      ['/modlog?seite=2&seite=2', undefined as unknown as RawAnswer], // the second page, by the pipeline
      ['/suche?q=Holunder&q=Tanne', search],
      ['/suche?q=Holunder&extra=1', search],
      ['/suche?q=Holunder&seite=1', search],
      ['/suche?q=Holunder&seite=0', search],
      ["/suche?q='Holunder'", undefined as unknown as RawAnswer], // a character the URL parser encodes
    ];
    for (const [path, same] of cases) {
      const answer = await ask(path);
      assert.equal(answer.fast, false, `${path}: the pipeline's`);
      if (!same) continue;
      assert.equal(answer.status, same.status, path);
      assert.equal(answer.text, same.text, `${path}: the page it always was`);
    }
    const head = await rawRequest(t.board.url, 'HEAD', '/?seite=2', { host: 'board' });
    assert.deepEqual([head.status, head.text], [200, '']);
    assert.equal(head.headers['content-length'], second.headers['content-length']);
    for (const path of ['/e/99999999', '/u/Niemand?seite=2']) {
      for (let i = 0; i < 2; i++) {
        const unknown = await ask(path);
        assert.deepEqual([unknown.status, unknown.fast], [404, false], `${path}: never kept`);
      }
    }
  });

  test("a banned account's later profile pages are drawn for every request, never by the fast path", async () => {
    await post(t.members.Bert, 'Bert war hier.');
    await ask('/u/Bert?seite=2');
    assert.equal((await ask('/u/Bert?seite=2')).fast, true, 'kept while no ban is in force');
    const banned = await t.members.Mod.post('/api/mod/user/Bert/ban', { reason: 'Spam', days: '1' });
    assert.equal(banned.status, 200, banned.text);
    for (let i = 0; i < 2; i++) {
      const page = await ask('/u/Bert?seite=2');
      assert.deepEqual([page.status, page.fast], [200, false], 'the ban ends by the clock: never kept');
      assert.match(page.text, /class="ban-note"/);
    }
    t.board.clock.advance(86_400 + 1);
    const ended = await ask('/u/Bert?seite=2');
    assert.doesNotMatch(ended.text, /class="ban-note"/, 'an ended ban leaves the page at once');
    assert.equal((await ask('/u/Bert?seite=2')).fast, true, 'and the page is kept again');
  });

  test('a crawler walking ?seite= keeps at most one page per list page in the cache', async () => {
    responses().everythingChanged();
    const misses = responses().tally.pageMisses;
    const walk = async () => {
      for (let n = 2; n <= 110; n++) await ask(`/?seite=${n}`);
      for (const n of [1_000, 1_000_000, 10 ** 15]) await ask(`/?seite=${n}`);
    };
    await walk();
    // Pages 2 to 101 are kept one each (past the last thread they are the empty page); beyond,
    // the pipeline answers the first page, kept once: 101 pages drawn for any walk.
    assert.equal(responses().tally.pageMisses - misses, 101);
    await walk();
    assert.equal(responses().tally.pageMisses - misses, 101, 'the second walk is answered from the cache');
  });
});
