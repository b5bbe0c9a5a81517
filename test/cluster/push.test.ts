import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { eventually, password, type Client } from '../helpers.ts';
import { previewEnv, startFakeSite, type FakeSite } from '../helpers/previews.ts';
import { bodyOf, decryptPush, fakeBrowser, verifyVapid } from '../helpers/push.ts';
import { startCluster, type ClusterBoard } from '../helpers/cluster-board.ts';

/**
 * Two workers on one database: a notification written by either worker is pushed once, by the
 * push job that runs in the primary (lib/jobs/once-jobs.ts), signed with the one key all share.
 */
describe('two workers, one database: Web Push', () => {
  const browser = fakeBrowser();
  const received: { text: string; aud: string }[] = [];
  let boardKey = '';
  let site: FakeSite;
  let board: ClusterBoard;
  let anna: Client;
  let bert: Client;

  async function member(worker: string, ip: string, name: string): Promise<Client> {
    const client = await board.clientOn(worker, ip);
    assert.equal(
      (await client.post('/api/auth/newuser', { user: name, pass1: password, pass2: password })).status,
      201,
    );
    assert.equal((await client.post('/api/auth/login', { user: name, pass: password })).status, 200);
    return client;
  }

  before(async () => {
    site = await startFakeSite({
      '/push/anna': async (req: IncomingMessage, res: ServerResponse) => {
        const body = await bodyOf(req);
        received.push({ text: decryptPush(browser, body), aud: verifyVapid(req, boardKey).aud });
        res.writeHead(201).end();
      },
    });
    board = await startCluster(previewEnv([site.port]));
    anna = await member('1', '192.0.2.20', 'Anna');
    bert = await member('2', '192.0.2.21', 'Bert');
  });
  after(async () => {
    // The site closes also when the cluster never started: an open server would hold the test process open.
    await board?.close();
    await site?.close();
  });

  test('a reply through the other worker reaches Anna’s device once, signed with the key both workers give', async () => {
    boardKey = (await anna.get('/api/user/push')).body.public_key;
    assert.equal((await bert.get('/api/user/push')).body.public_key, boardKey, 'one key for the whole board');
    const subscribed = await anna.post('/api/user/push', {
      endpoint: site.url('/push/anna'),
      p256dh: browser.p256dh,
      auth: browser.auth,
    });
    assert.equal(subscribed.status, 200, subscribed.text);
    const top = (await anna.post('/api/entry/create', { content: 'Anna fragt im Cluster.' })).body.pid;
    const reply = (await bert.post('/api/entry/create', { content: 'Bert antwortet.', reply_to: top })).body.pid;
    await eventually('the push', () => received.length > 0);
    assert.deepEqual(JSON.parse(received[0]!.text), {
      title: 'Bert hat dir geantwortet',
      body: 'Bert antwortet.',
      url: `/e/${reply}`,
      tag: `e${reply}`,
    });
    assert.equal(received[0]!.aud, new URL(site.url()).origin);
    await eventually(
      'the count in the metrics',
      async () => (await board.scrape()).get('board_push_total{outcome="delivered"}') === 1,
    );
    assert.equal(received.length, 1, 'sent once');
  });

  test('a reply deeper in Anna’s thread, through the other worker: the primary tells her as a follower, and pushes it', async () => {
    const top = (await anna.post('/api/entry/create', { content: 'Annas Thread im Cluster.' })).body.pid;
    const first = (await bert.post('/api/entry/create', { content: 'Erste Ebene.', reply_to: top })).body.pid;
    const deep = (await bert.post('/api/entry/create', { content: 'Tiefer unten.', reply_to: first })).body.pid;
    // Worker 2 wakes the fan-out job in the primary over IPC; its poll would find the row too.
    const pushed = await eventually(
      'the follower’s push',
      () => received.map((r) => JSON.parse(r.text)).find((p) => p.url === `/e/${deep}`),
      10_000,
    );
    assert.equal(pushed.title, 'Bert hat in einem Thread geantwortet, dem du folgst');
  });
});
