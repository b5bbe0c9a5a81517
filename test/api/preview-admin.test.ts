import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import {
  limitsOff,
  member,
  post,
  runAdmin,
  runAdminHere,
  startBoard,
  startProxiedBoard,
  type TestBoard,
  eventually,
  emptyFolder,
} from '../helpers.ts';
import { answer, page, previewEnv, startFakeSite, type FakeSite } from '../helpers/previews.ts';

/**
 * board-admin previews against a stopped board and beside a running one: the first test runs the real
 * program as a child process, as does --all beside the running server; the rest run its runCli in
 * this process (runAdminHere).
 */

let site: FakeSite;
let dataDir: string;

function cliEnv(): Record<string, string> {
  const { BOARD_TRUST_PROXY: _proxy, ...env } = previewEnv([site.port]);
  return env;
}

async function feedTitles(board: TestBoard): Promise<Map<number, string | undefined>> {
  const feed = await board.client().get('/api/entry/feed/0');
  assert.equal(feed.status, 200, feed.text);
  return new Map(feed.body.map((e: any) => [e.pid, e.preview?.title]));
}

before(async () => {
  site = await startFakeSite({
    '/one': answer(page('<title>Page one</title>')),
    '/two': answer(page('<meta property="og:title" content="Page two">')),
    '/challenge': answer(page('<title>Attention Required! | Cloudflare</title>')),
  });
  dataDir = emptyFolder('board-test-');
});

after(async () => {
  await site.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('board-admin previews', () => {
  const pids: Record<string, number> = {};

  test('fetches previews of entries written while previews were off, with progress on stderr', async () => {
    const old = await startProxiedBoard(limitsOff, { dataDir }); // BOARD_PREVIEW=0: links stored, nothing fetched
    const erin = await member(old, 'erin');
    pids.one = await post(erin, `first ${site.url('/one')}`);
    pids.two = await post(erin, `second ${site.url('/two')}`);
    pids.again = await post(erin, `first again ${site.url('/one')}.`);
    pids.challenge = await post(erin, site.url('/challenge'));
    pids.none = await post(erin, 'no link');
    await old.close();

    const run = await runAdmin(old, ['previews'], cliEnv());
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^queued 3 links; 3 fetched: 2 stored, 1 failed\n$/);
    for (const step of ['1/3 done', '2/3 done', '3/3 done']) assert.ok(run.stderr.includes(`${step}\n`), run.stderr);
    assert.equal(site.lastUserAgent, `BoardPreview/1.0 (+${old.config.origin})`);

    const after = await startProxiedBoard(limitsOff, { dataDir });
    try {
      const titles = await feedTitles(after);
      assert.equal(titles.get(pids.one!), 'Page one');
      assert.equal(titles.get(pids.again!), 'Page one');
      assert.equal(titles.get(pids.two!), 'Page two');
      assert.equal(titles.get(pids.challenge!), undefined);
      assert.equal(titles.get(pids.none!), undefined);
    } finally {
      await after.close();
    }
  });

  test('without --all fresh records are left alone; --all refetches every link, and a running server shows the result', async () => {
    const server = await startBoard(previewEnv([site.port]), { dataDir, preview: { pollMs: 100 } });
    try {
      assert.equal((await feedTitles(server)).get(pids.one!), 'Page one'); // now cached by the server

      const requestsBefore = site.requests.length;
      const lazy = await runAdminHere(server, ['previews'], cliEnv());
      assert.equal(lazy.code, 0, lazy.stderr);
      assert.match(lazy.stdout, /^queued 0 links; 0 fetched/);
      assert.equal(site.requests.length, requestsBefore);

      site.route('/one', answer(page('<title>Page one, renamed</title>')));
      const all = await runAdmin(server, ['previews', '--all'], cliEnv());
      assert.equal(all.code, 0, all.stderr);
      assert.match(all.stdout, /^queued 3 links; /);
      // the server learns of records another process wrote and drops its cached pages
      await eventually(
        "the renamed title in the server's feed",
        async () => (await feedTitles(server)).get(pids.one!) === 'Page one, renamed',
      );
    } finally {
      await server.close();
    }
  });

  test('with BOARD_PREVIEW=0 it says so and exits 1', async () => {
    const board = { config: { dataDir, origin: 'http://localhost:8080' } } as TestBoard;
    const run = await runAdminHere(board, ['previews'], { BOARD_PREVIEW: '0' });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /BOARD_PREVIEW=0/);
  });

  test('unknown arguments are a usage error', async () => {
    const board = { config: { dataDir, origin: 'http://localhost:8080' } } as TestBoard;
    const run = await runAdminHere(board, ['previews', '--everything'], cliEnv());
    assert.equal(run.code, 2);
    assert.match(run.stderr, /previews \[--all\]/);
  });
});
