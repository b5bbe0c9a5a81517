import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, member, startProxiedBoard, type TestBoard } from '../helpers.ts';
import { nginxPath, startNginx, type RunningNginx } from '../helpers/nginx.ts';
import { freePort } from '../helpers/ports.ts';

/**
 * docs/OPERATIONS.md "Federation" with the real nginx running deploy/nginx.conf: /e/{pid} and
 * /u/{name} are a page for browsers and a JSON-LD object for other servers at one address, and the
 * cache in front never answers one with the other, in either order.
 */

const skip = nginxPath()
  ? false
  : 'nginx is not installed here (Debian package nginx): the cache in front is not tested';
const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
/** Another browser's Accept (Chromium's): the same page, from the same cached copy. */
const otherBrowser = {
  accept:
    'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
};
const server = { accept: 'application/activity+json' };
/** Answered from nginx's copy (UPDATING: the copy while the board is asked again, on a slow machine). */
const fromCache = /^(HIT|UPDATING|STALE)$/;
const mastodon = { accept: 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"' };

describe('federated pages behind deploy/nginx.conf', { skip, timeout: 120_000 }, () => {
  let board: TestBoard;
  let nginx: RunningNginx;
  before(async () => {
    const port = await freePort();
    board = await startProxiedBoard({ BOARD_ORIGIN: `http://127.0.0.1:${port}`, BOARD_FEDERATION: 'open' });
    nginx = await startNginx(Number(new URL(board.url).port), port);
  });
  after(async () => {
    await nginx?.stop();
    await board?.close();
  });

  test('a page cached for browsers is never the answer to a server, and the object never to a browser', async () => {
    const anna = await member(board, 'Anna');
    const created = await anna.postMultipart('/api/entry/create', { content: 'Hinter nginx' });
    const reader = new Client(nginx.url);
    for (const path of [`/e/${created.body.pid}`, '/u/Anna']) {
      const page = await reader.get(path, browser);
      assert.equal(page.status, 200, path);
      assert.match(page.headers.get('content-type')!, /^text\/html/, path);
      assert.match((await reader.get(path, browser)).headers.get('x-cache-status')!, fromCache, path);
      // Every browser shares the one copy: the key, not each Accept string, tells page from object.
      const other = await reader.get(path, otherBrowser);
      assert.match(other.headers.get('x-cache-status')!, fromCache, path);
      assert.equal(other.text, page.text, path);
      for (const accept of [server, mastodon, server]) {
        const object = await reader.get(path, accept);
        assert.equal(object.status, 200, path);
        assert.equal(object.headers.get('content-type'), 'application/activity+json', path);
        assert.match(object.headers.get('vary')!, /Accept/, path);
      }
      const again = await reader.get(path, browser);
      assert.match(again.headers.get('content-type')!, /^text\/html/, path);
      assert.equal(again.text, page.text, path);
    }
  });

  test('an object asked first is not what the next browser gets', async () => {
    const bert = await member(board, 'Bert');
    const created = await bert.postMultipart('/api/entry/create', { content: 'Erst der Server, dann der Leser' });
    const path = `/e/${created.body.pid}`;
    const reader = new Client(nginx.url);
    const object = await reader.get(path, mastodon);
    assert.equal(object.headers.get('content-type'), 'application/activity+json');
    for (const accept of [browser, otherBrowser]) {
      const page = await reader.get(path, accept);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type')!, /^text\/html/);
    }
    assert.equal((await reader.get(path, server)).headers.get('content-type'), 'application/activity+json');
  });
});
