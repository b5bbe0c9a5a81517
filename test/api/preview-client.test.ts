import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createPreviewClient,
  maxRedirects,
  PreviewFetchError,
  type GetOptions,
  type PreviewClientOptions,
} from '../../lib/outgoing/client.ts';
import { PreviewBlockedError } from '../../lib/outgoing/guard.ts';
import { answer, page, redirect, startFakeSite, type FakeSite } from '../helpers/previews.ts';

/** The guarded client against fake sites on loopback: every refusal happens before a request leaves. */

const htmlGet: GetOptions = {
  accept: 'text/html',
  type: (t) => t.startsWith('text/html'),
  maxBytes: 1024 * 1024,
  overflow: 'truncate',
};

function client(options: Partial<PreviewClientOptions> & { ports: number[] }) {
  return createPreviewClient({
    allow: [],
    userAgent: 'BoardPreview/1.0 (+http://board.test)',
    timeoutMs: 3_000,
    ...options,
  });
}

async function refused(promise: Promise<unknown>, reason: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof PreviewBlockedError || err instanceof PreviewFetchError, String(err));
    assert.equal(err.reason, reason, err.message);
    return true;
  });
}

describe('guard with the default settings (no allow-list)', () => {
  let site: FakeSite;
  let siteV6: FakeSite | undefined;
  before(async () => {
    site = await startFakeSite({ '/': answer(page('<title>secret admin page</title>')) });
    siteV6 = await startFakeSite({ '/': answer('secret') }, '::1').catch(() => undefined); // a machine without IPv6 loopback skips that part
  });
  after(async () => {
    await site.close();
    await siteV6?.close();
  });

  test('127.0.0.1 by literal is refused and the site sees no request', async () => {
    const c = client({ ports: [site.port] });
    await refused(c.get(site.url('/'), htmlGet), 'address');
    await refused(c.get(`http://0x7f.1:${site.port}/`, htmlGet), 'address');
    await refused(c.get(`http://2130706433:${site.port}/`, htmlGet), 'address');
    await refused(c.get(`http://[::ffff:127.0.0.1]:${site.port}/`, htmlGet), 'address');
    await refused(c.get(`http://127.0.0.2:${site.port}/`, htmlGet), 'address');
    await c.close();
    assert.deepEqual(site.requests, []);
  });

  test('localhost by name is refused after DNS and the site sees no request', async () => {
    const c = client({ ports: [site.port] });
    await refused(c.get(`http://localhost:${site.port}/`, htmlGet), 'address');
    await refused(c.get(`http://LocalHost:${site.port}/`, htmlGet), 'address');
    await c.close();
    assert.deepEqual(site.requests, []);
  });

  test('[::1] is refused and the site on ::1 sees no request', async () => {
    const port = siteV6?.port ?? site.port;
    const c = client({ ports: [port] });
    await refused(c.get(`http://[::1]:${port}/`, htmlGet), 'address');
    await refused(c.get(`http://[0:0:0:0:0:0:0:1]:${port}/`, htmlGet), 'address');
    await c.close();
    assert.deepEqual(siteV6?.requests ?? [], []);
  });

  test('a host whose DNS answer mixes a public and a private address is refused', async () => {
    const c = client({
      ports: [site.port],
      resolve: async () => [
        { address: '93.184.215.14', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    });
    await refused(c.get(`http://mixed.test:${site.port}/`, htmlGet), 'address');
    await c.close();
    assert.deepEqual(site.requests, []);
  });

  test('a disallowed port is refused, the default port included', async () => {
    const c = client({ ports: [80, 443], allow: ['127.0.0.1/32'] });
    await refused(c.get(site.url('/'), htmlGet), 'port');
    const only443 = client({ ports: [443], allow: ['127.0.0.1/32'] });
    await refused(only443.get('http://127.0.0.1/', htmlGet), 'port');
    await c.close();
    await only443.close();
    assert.deepEqual(site.requests, []);
  });

  test('schemes other than http and https are refused', async () => {
    const c = client({ ports: [80, 443, 21] });
    for (const url of [
      'ftp://127.0.0.1/',
      'file:///etc/passwd',
      'data:text/html,<title>x</title>',
      'ws://example.com/',
    ]) {
      await refused(c.get(url, htmlGet), 'scheme');
    }
    await c.close();
  });
});

describe('guard with an allow-list (tests reach 127.0.0.1 only)', () => {
  let site: FakeSite;
  let other: FakeSite;
  before(async () => {
    other = await startFakeSite({ '/': answer(page('<title>other</title>')) }, '127.0.0.2');
    site = await startFakeSite({
      '/ok': answer(page('<title>ok</title>')),
      '/to-file': redirect('file:///etc/passwd'),
      '/to-port': redirect('http://127.0.0.1:1/'),
      '/relative': redirect('/ok', 301),
      '/plain': answer('just text', 'text/plain'),
      '/missing': answer('gone', 'text/html', 404),
    });
    site.route('/to-other', redirect(other.url('/')));
    site.route('/to-localhost', redirect(`http://localhost:${site.port}/ok`));
    for (let i = 0; i < 10; i++) site.route(`/hop${i}`, redirect(`/hop${i + 1}`));
    site.route('/hop10', answer(page('<title>end</title>')));
    // Names the connection a request came on by its client port.
    site.route('/peer', (req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(`<title>${req.socket.remotePort}</title>`)),
    );
  });
  after(async () => {
    await site.close();
    await other.close();
  });

  const allowed = () => client({ ports: [site.port, other.port], allow: ['127.0.0.1/32'] });

  test('an allowed page is fetched with an honest User-Agent', async () => {
    const c = allowed();
    const got = await c.get(site.url('/ok'), htmlGet);
    await c.close();
    assert.match(got.body.toString(), /<title>ok<\/title>/);
    assert.equal(site.lastUserAgent, 'BoardPreview/1.0 (+http://board.test)');
  });

  test('a redirect to 127.0.0.2 is refused and that server sees no request', async () => {
    const c = allowed();
    await refused(c.get(site.url('/to-other'), htmlGet), 'address');
    await c.close();
    assert.deepEqual(other.requests, []);
  });

  test('every hop is checked: scheme, port and a name resolving to a refused address', async () => {
    const c = client({
      ports: [site.port],
      allow: ['127.0.0.1/32'],
      resolve: async () => [{ address: '127.0.0.3', family: 4 }],
    });
    await refused(c.get(site.url('/to-file'), htmlGet), 'scheme');
    await refused(c.get(site.url('/to-port'), htmlGet), 'port');
    await refused(c.get(site.url('/to-localhost'), htmlGet), 'address');
    await c.close();
  });

  test('requests to one site reuse a kept connection, resolved and checked once; a new one is checked again', async () => {
    const lookups: string[] = [];
    const c = client({
      ports: [site.port],
      allow: ['127.0.0.1/32'],
      resolve: async (name) => {
        lookups.push(name);
        return [{ address: name === 'site.test' ? '127.0.0.1' : '127.0.0.3', family: 4 }];
      },
    });
    const first = await c.get(`http://site.test:${site.port}/peer`, htmlGet);
    // The next turn, when the connection the first request came on is back in the pool.
    await new Promise((resolve) => setImmediate(resolve));
    const second = await c.get(`http://site.test:${site.port}/peer`, htmlGet);
    await refused(c.get(`http://other.test:${site.port}/peer`, htmlGet), 'address');
    await c.close();
    assert.equal(second.body.toString(), first.body.toString(), 'both came on one connection');
    assert.deepEqual(lookups, ['site.test', 'other.test']);
  });

  test('relative redirects are followed and the final URL is reported', async () => {
    const c = allowed();
    const got = await c.get(site.url('/relative'), htmlGet);
    await c.close();
    assert.equal(got.url.href, site.url('/ok'));
  });

  test(`at most ${maxRedirects} redirects are followed`, async () => {
    const c = allowed();
    const five = await c.get(site.url(`/hop${10 - maxRedirects}`), htmlGet);
    assert.equal(five.url.pathname, '/hop10');
    const before = site.requests.length;
    await refused(c.get(site.url(`/hop${10 - maxRedirects - 1}`), htmlGet), 'redirects');
    assert.equal(site.requests.length - before, maxRedirects + 1, 'the sixth redirect target is never requested');
    await c.close();
  });

  test('a wrong content type or status is refused', async () => {
    const c = allowed();
    await refused(c.get(site.url('/plain'), htmlGet), 'type');
    await refused(c.get(site.url('/missing'), htmlGet), 'status');
    await c.close();
  });
});

describe('limits', () => {
  let site: FakeSite;
  before(async () => {
    site = await startFakeSite({
      '/big': answer(Buffer.alloc(300_000, 'a'), 'application/json'),
      '/big-html': answer(`<html><head><title>t</title></head><body>${'x'.repeat(300_000)}</body></html>`),
      '/slow': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><head>'); // and never more
      },
      '/slow-redirects': (_req, res) => {
        setTimeout(() => res.writeHead(302, { location: '/slow-redirects' }).end(), 150);
      },
    });
  });
  after(() => site.close());

  const c = () => client({ ports: [site.port], allow: ['127.0.0.1/32'], timeoutMs: 400 });

  test('a body over the limit is refused when it must be whole, cut when it may be', async () => {
    const fetcher = c();
    await refused(
      fetcher.get(site.url('/big'), { accept: '*/*', type: () => true, maxBytes: 64 * 1024, overflow: 'fail' }),
      'size',
    );
    const cut = await fetcher.get(site.url('/big-html'), { ...htmlGet, maxBytes: 100_000 });
    assert.equal(cut.body.length <= 100_000, true);
    await fetcher.close();
  });

  test('reading stops at </head>', async () => {
    const fetcher = c();
    const got = await fetcher.get(site.url('/big-html'), {
      ...htmlGet,
      enough: (tail) => tail.toString('latin1').includes('</head'),
    });
    assert.ok(got.body.length < 300_000, `read ${got.body.length} bytes`);
    await fetcher.close();
  });

  test('a page that never finishes times out', async () => {
    const fetcher = c();
    await refused(fetcher.get(site.url('/slow'), htmlGet), 'timeout');
    await fetcher.close();
  });

  test('the timeout covers the redirects too', async () => {
    const fetcher = c();
    // six hops of 150 ms each cannot fit in 400 ms: the clock runs across redirects
    await refused(fetcher.get(site.url('/slow-redirects'), htmlGet), 'timeout');
    await fetcher.close();
  });
});
