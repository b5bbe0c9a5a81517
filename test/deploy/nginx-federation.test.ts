import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, member, startProxiedBoard, type TestBoard } from '../helpers.ts';
import { freePort, nginxPath, startNginx, type RunningNginx } from '../helpers/nginx.ts';

/**
 * docs/OPERATIONS.md "Federation" with the real nginx running deploy/nginx.conf: /e/{pid} and
 * /u/{name} are a page for browsers and a JSON-LD object for other servers at one address, and the
 * cache in front never answers one with the other, in either order.
 */

const skip = nginxPath()
  ? false
  : 'nginx is not installed here (Debian package nginx): the cache in front is not tested';
const browser = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const server = { accept: 'application/activity+json' };
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
      assert.equal((await reader.get(path, browser)).headers.get('x-cache-status'), 'HIT', path);
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
});
