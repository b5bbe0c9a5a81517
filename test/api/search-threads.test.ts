import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { createApp } from '../../lib/app.ts';
import { loadConfig } from '../../lib/config.ts';
import { serveApp, type Serving } from '../../lib/process/serve.ts';
import type { SearchThreads } from '../../lib/search/threads.ts';
import {
  assertDocumented,
  assertError,
  eventually,
  post,
  rawRequest,
  testBoardEnv,
  useBoard,
  visitor,
  type Answer,
  type Client,
  emptyFolder,
} from '../helpers.ts';
import { prepareDataDir } from '../../lib/host/folders.ts';
import { responsesOf } from '../../lib/http/response-cache.ts';

/**
 * docs/API.md "Search" (issue 28): the match runs on the search threads, never on the event loop;
 * the machine runs two at once and a process lets 8 more wait, past that 503 search.busy; q holds at
 * most 10 terms. Held jobs (createApp's searchThreads.held) stand for a long search: each waits
 * inside its thread until the test releases it, so nothing here depends on the machine's speed.
 */

const search = (client: Client, q: string) => client.get(`/api/search/0?q=${encodeURIComponent(q)}`);
const contents = (answer: Answer) => (answer.body as { content: string }[]).map((e) => e.content);

/** Waits until the board's search slots (this process's, lib/host/machine-slots.ts) show this many running and waiting. */
const searchLine = (threads: SearchThreads, running: number, waiting: number) =>
  eventually(`${running} searches running, ${waiting} waiting`, () => {
    const load = threads.load();
    return load.running === running && load.waiting === waiting;
  });

describe('search: at most 10 terms', () => {
  const t = useBoard({ members: ['Anna'] });
  const words = 'eins zwei drei vier fünf sechs sieben acht neun zehn elf zwölf';

  test('q with more than 10 words answers 400 input.invalid naming q, in German; 10 words and a quoted phrase of twelve are searched', async () => {
    await post(t.members.Anna, `Zählen: ${words}.`);
    const ten = words.split(' ').slice(0, 10).join(' ');
    assert.deepEqual(contents(await search(visitor(t.board), ten)), [`Zählen: ${words}.`]);
    assert.deepEqual(
      contents(await search(visitor(t.board), `"${words}"`)),
      [`Zählen: ${words}.`],
      'a phrase is one term',
    );
    assert.deepEqual(
      contents(await search(visitor(t.board), `"${words}" eins zwei drei vier fünf sechs sieben acht neun`)),
      [`Zählen: ${words}.`],
      'a phrase and nine words',
    );
    const eleven = await search(visitor(t.board), words.split(' ').slice(0, 11).join(' '));
    assertError(eleven, 400, 'input.invalid', { field: 'q', exact: true });
    assert.equal(
      eleven.body.error.message,
      'Bitte höchstens 10 Suchwörter eingeben; eine Wortfolge in Anführungszeichen zählt als eines.',
    );
    assertError(await search(visitor(t.board), `"${words}" ${ten}`), 400, 'input.invalid', 'q');
  });
});

describe('search: a search in its thread holds no other request', () => {
  // The line's 2 s wait is not what this test proves: held searches may wait as long as the machine needs.
  const t = useBoard({ members: ['Anna'], start: { searchThreads: { held: true, maxWaitMs: 600_000 } } });

  test('while a search is held in its thread, the feed and a thread answer; the search answers once it runs', async () => {
    const first = await post(t.members.Anna, 'Unser Balkonkraftwerk läuft seit März.');
    await post(t.members.Anna, 'Ein Kraftwerk auf dem Dach?');
    let answered = false;
    const pending = search(visitor(t.board), 'kraftwerk').finally(() => (answered = true));
    await searchLine(t.board.app.services.searchThreads, 1, 0);
    const feed = await visitor(t.board).get('/api/entry/feed/0');
    assert.equal(feed.status, 200);
    assert.deepEqual(contents(feed), ['Ein Kraftwerk auf dem Dach?', 'Unser Balkonkraftwerk läuft seit März.']);
    assert.equal((await visitor(t.board).get(`/api/entry/${first}/thread`)).status, 200);
    assert.equal(answered, false, 'the search is still held');
    t.board.app.services.searchThreads.release();
    const answer = await pending;
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(contents(answer), ['Ein Kraftwerk auf dem Dach?', 'Unser Balkonkraftwerk läuft seit März.']);
  });
});

describe('search: the line is bounded', () => {
  // The line's 2 s wait is not what this test proves: held searches may wait as long as the machine needs.
  const t = useBoard({ members: ['Anna'], start: { searchThreads: { held: true, maxWaitMs: 600_000 } } });

  test('with both threads busy and 8 searches waiting, the next answers 503 search.busy with Retry-After; the same search asked again shares its build', async () => {
    await post(t.members.Anna, 'Wort0 steht hier, Wort5 auch.');
    const queries = Array.from({ length: 10 }, (_, i) => `wort${i}`);
    const held = queries.map((q) => search(visitor(t.board), q));
    await searchLine(t.board.app.services.searchThreads, 2, 8);
    const busy = await search(visitor(t.board), 'wort10');
    assertError(busy, 503, 'search.busy', { exact: true });
    assert.equal(busy.headers.get('retry-after'), '2');
    assert.equal(
      busy.body.error.message,
      'Die Suche ist gerade ausgelastet. Bitte versuche es in ein paar Sekunden noch einmal.',
    );
    // The same page under the same board state is being built already: it waits for that build, not in the line.
    const { tally } = responsesOf(t.board.app.services.db);
    const hitsBefore = tally.searchHits;
    const again = search(visitor(t.board), 'wort0');
    await eventually("the second wort0 joins the first one's build", () => tally.searchHits === hitsBefore + 1);
    assert.deepEqual(
      t.board.app.services.searchThreads.load(),
      { running: 2, waiting: 8 },
      'it took no place in the line',
    );
    t.board.app.services.searchThreads.release();
    const answers = await Promise.all([...held, again]);
    assert.deepEqual(
      answers.map((a) => a.status),
      Array(11).fill(200),
    );
    assert.deepEqual(answers.map(contents), [
      ['Wort0 steht hier, Wort5 auch.'],
      [],
      [],
      [],
      [],
      ['Wort0 steht hier, Wort5 auch.'],
      [],
      [],
      [],
      [],
      ['Wort0 steht hier, Wort5 auch.'],
    ]);
    assert.equal((await search(visitor(t.board), 'wort10')).status, 200, 'the line is free again');
  });
});

describe('search: the page /suche under a flood', () => {
  // The line's 2 s wait is not what this test proves: held searches may wait as long as the machine needs.
  const t = useBoard({ members: ['Anna'], start: { searchThreads: { held: true, maxWaitMs: 600_000 } } });

  test('with the search line full, /suche answers a drawn page 503 with Retry-After and why, in German; /api/search keeps its JSON', async () => {
    await post(t.members.Anna, 'Wort1 steht hier.');
    const held = Array.from({ length: 10 }, (_, i) => search(visitor(t.board), `wort${i}`));
    try {
      await searchLine(t.board.app.services.searchThreads, 2, 8);
      const page = await visitor(t.board).get('/suche?q=wort10');
      assert.equal(page.status, 503, page.text.slice(0, 200));
      assertDocumented(page);
      assert.match(page.headers.get('content-type')!, /^text\/html; charset=utf-8/);
      assert.equal(page.headers.get('retry-after'), '2');
      assert.match(page.text, /<form class="search-form"[^>]*action="\/suche"/, 'the form to try again');
      assert.match(page.text, /value="wort10"/, 'with the search asked');
      assert.ok(
        page.text.includes('Die Suche ist gerade ausgelastet. Bitte versuche es in ein paar Sekunden noch einmal.'),
        'and why',
      );
      assertError(await search(visitor(t.board), 'wort11'), 503, 'search.busy', { exact: true });
    } finally {
      t.board.app.services.searchThreads.release(); // also when an assertion failed: no search outlives the test
    }
    assert.deepEqual(
      (await Promise.all(held)).map((a) => a.status),
      Array(10).fill(200),
    );
    const after = await visitor(t.board).get('/suche?q=wort1');
    assert.equal(after.status, 200, 'the page answers once the line is free');
    assert.match(after.text, /<mark>Wort1<\/mark> steht hier\./);
  });
});

describe('search: graceful stop', () => {
  test("SIGTERM's stop answers the search in flight first, then stops the search threads", async () => {
    const dataDir = emptyFolder('board-test-');
    const config = loadConfig(testBoardEnv(dataDir));
    prepareDataDir(config);
    const app = createApp(config, { log: () => {}, searchThreads: { held: true } });
    try {
      let serving: Serving | undefined;
      const port = await new Promise<number>((resolve, reject) => {
        serving = serveApp(app, config, { listening: resolve, failed: reject });
      });
      // One request on a connection of its own (agent: false), so the stop waits for nothing but the search.
      const pending = rawRequest(`http://127.0.0.1:${port}`, 'GET', '/api/search/0?q=irgendwas');
      await searchLine(app.services.searchThreads, 1, 0);
      let stopped = false;
      const stopping = serving!.shutdown('SIGTERM').then(() => (stopped = true));
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(stopped, false, 'the stop waits for the search in flight');
      app.services.searchThreads.release();
      const answer = await pending;
      assert.equal(answer.status, 200, answer.text);
      await stopping;
      await assert.rejects(app.services.searchThreads.all('SELECT 1', []), /stopped/, 'the threads are stopped');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
