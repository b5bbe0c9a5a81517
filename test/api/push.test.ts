import assert from 'node:assert/strict';
import { after, afterEach, describe, test } from 'node:test';
import { maxPushDevices } from '../../lib/product.ts';
import {
  assertDocumented,
  assertError,
  eventually,
  limitsOff,
  password,
  post,
  uidOf,
  useBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { page, previewRow, startFakeSite, type FakeSite } from '../helpers/previews.ts';
import { download, unzip } from '../helpers/export.ts';
import { fakeBrowser, pushService, type FakeBrowser, type Received } from '../helpers/push.ts';

/**
 * docs/API.md "Web Push": the board's pushes reach a push service on 127.0.0.1 written for the
 * test, which decrypts them with the subscription's keys as a browser would.
 */

const service = pushService();
let site: FakeSite;
const paths = ['/push/anna', '/push/anna2', '/push/gone', '/push/hang', '/push/fast', '/push/bert'];

async function subscribe(client: Client, path: string): Promise<FakeBrowser> {
  const browser = fakeBrowser();
  service.devices.set(path, browser);
  const answer = await client.post('/api/user/push', {
    endpoint: site.url(path),
    p256dh: browser.p256dh,
    auth: browser.auth,
  });
  assert.equal(answer.status, 200, answer.text);
  assertDocumented(answer);
  return browser;
}

async function pushesTo(path: string, count: number): Promise<Received[]> {
  await eventually(
    `${count} push(es) to ${path}`,
    () => service.received.filter((r) => r.path === path).length >= count,
  );
  return service.received.filter((r) => r.path === path);
}

function deviceRows(board: TestBoard, uid: number): number {
  return board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM push_devices WHERE uid = ?', uid)!.n;
}

async function secondSession(board: TestBoard, name: string): Promise<Client> {
  const client = visitor(board);
  const login = await client.post('/api/auth/login', { user: name, pass: password });
  assert.equal(login.status, 200, login.text);
  return client;
}

describe('web push', () => {
  const t = useBoard({
    prepare: async () => {
      site = await startFakeSite(Object.fromEntries(paths.map((path) => [path, service.handler])));
      site.route('/artikel', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('<title>Ein Artikel</title>'));
      });
    },
    env: () => ({
      ...limitsOff,
      BOARD_PREVIEW: '1',
      BOARD_METRICS_PORT: '0',
      BOARD_PREVIEW_ALLOW: '127.0.0.1/32',
      BOARD_PREVIEW_PORTS: String(site.port),
    }),
    start: {
      // The sender's DNS: one name answers a private address, as a rebinding attacker's would.
      push: {
        pollMs: 20,
        resolve: async (host) => (host === 'push.intern.test' ? [{ address: '10.0.0.5', family: 4 }] : []),
      },
      preview: { pollMs: 20 },
    },
    members: ['Anna', 'Bert', 'Carla'],
  });
  after(() => site?.close());
  afterEach(() => {
    service.answers.clear();
  });

  test('the board’s key is made at the first start and kept in the database; GET /api/user/push gives it', async () => {
    const { Anna } = t.members;
    const stored = t.board.app.services.db.all<{ public_key: string }>('SELECT public_key FROM push_keys');
    assert.equal(stored.length, 1, 'made at the start, before any request asked');
    const state = await Anna.get('/api/user/push');
    assert.equal(state.status, 200, state.text);
    assertDocumented(state);
    assert.deepEqual(state.body, { enabled: 1, public_key: stored[0]!.public_key, subscribed: 0 });
    assert.equal(Buffer.from(state.body.public_key, 'base64url').length, 65);
    service.setBoardKey(state.body.public_key);
    assertError(await visitor(t.board).get('/api/user/push'), 401, 'auth.required');
  });

  test('a reply reaches the subscribed device encrypted for its keys, as the German text the notification page shows, VAPID-signed', async () => {
    const { Anna, Bert } = t.members;
    await subscribe(Anna, '/push/anna');
    assert.equal((await Anna.get('/api/user/push')).body.subscribed, 1);
    const top = await post(Anna, 'Kennt jemand ein gutes Buch über Pilze?');
    const reply = await post(Bert, 'Ja: „Pilze Mitteleuropas“, sehr gründlich.', top);
    const [push] = await pushesTo('/push/anna', 1);
    assert.deepEqual(JSON.parse(push!.text), {
      title: 'Bert hat dir geantwortet',
      body: 'Ja: „Pilze Mitteleuropas“, sehr gründlich.',
      url: `/e/${reply}`,
      tag: `e${reply}`,
    });
    assert.equal(push!.headers['content-encoding'], 'aes128gcm');
    assert.equal(push!.headers.ttl, '86400');
    assert.equal(push!.claims.aud, new URL(site.url()).origin, 'the audience is the push service’s origin');
    assert.ok(push!.claims.exp > Date.now() / 1000, 'not expired');
    assert.match(push!.claims.sub, /^mailto:|^https:/);
    assert.equal(
      t.board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM push_outbox')!.n,
      0,
      'sent pushes leave the queue',
    );
    // The service has the push before the sender has its answer: the count follows.
    const delivered = /^board_push_total\{outcome="delivered"\} 1$/m;
    await eventually('the operator sees it in the metrics', async () =>
      delivered.test(await (await fetch(`${t.board.metricsUrl}/metrics`)).text()),
    );
  });

  test('the session list shows which sessions get pushes (the service’s origin, never the keys)', async () => {
    const { Anna } = t.members;
    const sessions = await Anna.get('/api/user/sessions');
    assertDocumented(sessions);
    const current = sessions.body.find((s: { current: number }) => s.current === 1);
    assert.deepEqual(Object.keys(current.push).sort(), ['created_at', 'service']);
    assert.equal(current.push.service, new URL(site.url()).origin);
    assert.ok(!JSON.stringify(sessions.body).includes(service.devices.get('/push/anna')!.auth));
  });

  test('the data export holds the followed entries and each session’s push device, never a key or the endpoint', async () => {
    const { Anna } = t.members;
    const top = await post(Anna, 'Für den Export.');
    const archive = await download(Anna);
    assert.equal(archive.status, 200);
    const text = (await unzip(archive.bytes)).get('account.json')!.toString('utf8');
    const account = JSON.parse(text);
    assert.ok(
      account.following.some((f: { pid: number }) => f.pid === top),
      'her new thread, followed by default',
    );
    const current = account.sessions.find((s: { current: number }) => s.current === 1);
    assert.deepEqual(
      current.push,
      (await Anna.get('/api/user/sessions')).body.find((s: { current: number }) => s.current === 1).push,
    );
    const browser = service.devices.get('/push/anna')!;
    for (const secret of [browser.auth, browser.p256dh, site.url('/push/anna')])
      assert.ok(!text.includes(secret), 'no key and no endpoint in the export');
  });

  test('a mention and a followed thread push too; a second reply of a followed thread before reading does not', async () => {
    const { Anna, Bert, Carla } = t.members;
    const before = service.received.filter((r) => r.path === '/push/anna').length;
    const top = await post(Carla, 'Carlas Thread.');
    await Anna.post(`/api/entry/${top}/follow`);
    const first = await post(Bert, 'Erste Ebene.', top);
    const [, push] = await pushesTo('/push/anna', before + 1).then((all) => [null, all.at(-1)]);
    assert.deepEqual(JSON.parse(push!.text).title, 'Bert hat in einem Thread geantwortet, dem du folgst');
    assert.equal(JSON.parse(push!.text).url, `/e/${first}`);
    await post(Bert, 'Zweite, ungelesen: kein neuer Push.', first);
    const mention = await post(Carla, 'Was meinst du, @Anna?');
    const all = await pushesTo('/push/anna', before + 2);
    assert.deepEqual(JSON.parse(all.at(-1)!.text), {
      title: 'Carla hat dich erwähnt',
      body: 'Was meinst du, @Anna?',
      url: `/e/${mention}`,
      tag: `e${mention}`,
    });
    assert.equal(all.length, before + 2, 'the second reply of the followed thread sent nothing');
  });

  test('a subscription the push service answers 410 or 404 for is dropped', async () => {
    const { Bert, Carla } = t.members;
    const bert = uidOf(t.board, 'Bert');
    for (const status of [410, 404]) {
      await subscribe(Bert, '/push/gone');
      assert.equal(deviceRows(t.board, bert), 1);
      service.answers.set('/push/gone', status);
      const top = await post(Bert, `Gleich ${status}.`);
      await post(Carla, 'Antwort.', top);
      await eventually(`the device is dropped after ${status}`, () => deviceRows(t.board, bert) === 0);
      assert.equal((await Bert.get('/api/user/push')).body.subscribed, 0);
    }
  });

  test('an endpoint whose name resolves to a private address is refused when sending, and its subscription dropped', async () => {
    const { Bert, Carla } = t.members;
    const bert = uidOf(t.board, 'Bert');
    const browser = fakeBrowser();
    // Allowed when subscribing: https, an allowed port, a name (its DNS answer is checked at every send).
    const endpoint = `https://push.intern.test:${site.port}/push/bert`;
    const subscribed = await Bert.post('/api/user/push', { endpoint, p256dh: browser.p256dh, auth: browser.auth });
    assert.equal(subscribed.status, 200, subscribed.text);
    const blocked = t.board.app.jobs!.push!.stats().outcomes.blocked;
    await post(Carla, 'Antwort an Bert.', await post(Bert, 'Bert hat eine interne Adresse angegeben.'));
    await eventually('the subscription is dropped', () => deviceRows(t.board, bert) === 0);
    assert.equal(t.board.app.jobs!.push!.stats().outcomes.blocked, blocked + 1);
    assert.ok(
      t.board.logs.some((line) => /push to https:\/\/push\.intern\.test:\d+: blocked: .*10\.0\.0\.5/.test(line)),
      'the log names the push service and why, never a reader',
    );
  });

  test('a hanging push service delays no request, no other device’s push and no preview', async () => {
    const { Bert, Carla } = t.members;
    const hang = service.holdHang();
    await subscribe(Bert, '/push/hang');
    const carla2 = await secondSession(t.board, 'Carla');
    await subscribe(carla2, '/push/fast');
    const fastBefore = service.received.filter((r) => r.path === '/push/fast').length;
    const bertsTop = await post(Bert, 'Bert wartet.');
    await post(Carla, 'Antwort an Bert.', bertsTop);
    await hang.arrival; // the push to Bert's device is now held at the service
    // Requests answer while it hangs: a create, a read, a thread.
    const carlasTop = await post(Carla, 'Carla bekommt ihren Push trotzdem.');
    const reply = await post(Bert, 'Antwort an Carla, während es hängt.', carlasTop);
    assert.equal((await visitor(t.board).get(`/api/entry/${carlasTop}/thread`)).status, 200);
    // Another device's push goes out meanwhile.
    const fast = await pushesTo('/push/fast', fastBefore + 1);
    assert.equal(JSON.parse(fast.at(-1)!.text).url, `/e/${reply}`);
    // And the other jobs run: a link preview is fetched.
    await post(Carla, `Lesetipp: ${site.url('/artikel')}`);
    await eventually('the preview', () => previewRow(t.board, site.url('/artikel'))?.title === 'Ein Artikel');
    hang.release();
  });

  test('a push waiting behind one on its way is checked again when its turn comes: read by then, it is not sent', async () => {
    const { Bert, Carla } = t.members;
    const hang = service.holdHang();
    const sent = service.received.filter((r) => r.path === '/push/hang').length;
    const top = await post(Bert, 'Bert liest gleich alles.');
    await post(Carla, 'Die erste hängt.', top);
    await hang.arrival; // one push per device at a time: the next waits in the queue
    const skipped = t.board.app.jobs!.push!.stats().outcomes.skipped;
    await post(Carla, 'Die zweite wartet.', top);
    assert.equal((await Bert.post('/api/user/notifications/read')).status, 200);
    hang.release();
    await eventually('the waiting push is dropped', () => t.board.app.jobs!.push!.stats().outcomes.skipped > skipped);
    assert.equal(service.received.filter((r) => r.path === '/push/hang').length, sent + 1, 'only the first went out');
    assert.equal(t.board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM push_outbox')!.n, 0);
  });

  test('a device’s pushes end with its session, and with POST /api/user/push/delete', async () => {
    const { Anna } = t.members;
    const anna = uidOf(t.board, 'Anna');
    const anna2 = await secondSession(t.board, 'Anna');
    await subscribe(anna2, '/push/anna2');
    const withTwo = deviceRows(t.board, anna);
    assert.ok(withTwo >= 2);
    assert.equal((await anna2.post('/api/auth/logout')).status, 200);
    assert.equal(deviceRows(t.board, anna), withTwo - 1, 'logging out ended the session’s pushes');
    const deleted = await Anna.post('/api/user/push/delete');
    assert.equal(deleted.status, 200, deleted.text);
    assertDocumented(deleted);
    assert.equal((await Anna.get('/api/user/push')).body.subscribed, 0);
    await Anna.post('/api/user/push/delete'); // again: nothing to end, still 200
    assertError(
      await Anna.post('/api/user/push/delete', { id: '0123456789abcdef0123456789abcdef' }),
      404,
      'session.not_found',
    );
  });

  test('a subscription is validated: https endpoint on an allowed port and address, a P-256 key, a 16-byte secret', async () => {
    const { Carla } = t.members;
    const browser = fakeBrowser();
    const good = { endpoint: site.url('/push/x'), p256dh: browser.p256dh, auth: browser.auth };
    const bad: [Record<string, string>, string][] = [
      [{ endpoint: 'http://push.example.com/x' }, 'endpoint'],
      [{ endpoint: 'https://10.0.0.1/x' }, 'endpoint'],
      [{ endpoint: 'https://169.254.169.254/latest' }, 'endpoint'],
      [{ endpoint: 'https://push.example.com:22/x' }, 'endpoint'],
      [{ endpoint: 'https://user:pw@push.example.com/x' }, 'endpoint'],
      [{ endpoint: `https://push.example.com/${'a'.repeat(1000)}` }, 'endpoint'],
      [{ endpoint: 'kein Link' }, 'endpoint'],
      [{ p256dh: '' }, 'p256dh'],
      [{ p256dh: Buffer.alloc(65, 4).toString('base64url') }, 'p256dh'],
      [{ p256dh: browser.ecdh.getPublicKey('base64url', 'compressed') }, 'p256dh'],
      [{ auth: Buffer.alloc(8).toString('base64url') }, 'auth'],
      [{ auth: 'kein base64!' }, 'auth'],
    ];
    for (const [change, field] of bad)
      assertError(await Carla.post('/api/user/push', { ...good, ...change }), 400, 'input.invalid', {
        field,
        note: JSON.stringify(change).slice(0, 80),
      });
    assertError(await visitor(t.board).post('/api/user/push', good), 401, 'auth.required');
  });

  test(`at most ${maxPushDevices} devices per account; the next is refused with a message saying so`, async () => {
    const carla = uidOf(t.board, 'Carla');
    while (deviceRows(t.board, carla) < maxPushDevices)
      await subscribe(await secondSession(t.board, 'Carla'), '/push/fast');
    const one = await secondSession(t.board, 'Carla');
    const browser = fakeBrowser();
    const refused = await one.post('/api/user/push', {
      endpoint: site.url('/push/fast'),
      p256dh: browser.p256dh,
      auth: browser.auth,
    });
    assertError(refused, 400, 'input.invalid', 'endpoint');
    assert.match(refused.body.error.message, new RegExp(`${maxPushDevices} Geräte`));
    assert.equal(deviceRows(t.board, carla), maxPushDevices);
  });

  test('GET /sw.js: the service worker from the board’s own origin, and the page’s CSP lets it run unchanged', async () => {
    const sw = await visitor(t.board).get('/sw.js');
    assert.equal(sw.status, 200);
    assertDocumented(sw);
    assert.match(String(sw.headers.get('content-type')), /^text\/javascript/);
    assert.match(sw.text, /addEventListener\('push'/);
    const home = await visitor(t.board).get('/');
    const csp = String(home.headers.get('content-security-policy'));
    assert.match(csp, /default-src 'self'/);
    assert.doesNotMatch(csp, /worker-src|script-src/, 'worker-src falls back to default-src: same origin only');
  });
});
