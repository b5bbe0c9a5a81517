import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createDnsResolver, DnsTimeout } from '../../lib/outgoing/dns.ts';
import { post, useBoard, eventually } from '../helpers.ts';
import { answer, page, previewEnv, previewRow, startFakeSite, type FakeSite } from '../helpers/previews.ts';

/**
 * Finding 4 of the abuse review: the fetcher resolved with dns.lookup (no time limit, no cancel,
 * a few at a time), so four links to a name whose DNS never answers made a good link fail, and
 * that failure stuck for a day. Here a fake DNS server on loopback answers `good.test` and never
 * answers anything under `never.test`.
 */

interface FakeDns {
  server: string;
  /** Queries seen per name. */
  queries: Map<string, number>;
  close(): Promise<void>;
}

function readName(message: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  while (message[offset]! > 0) {
    const length = message[offset]!;
    labels.push(message.toString('latin1', offset + 1, offset + 1 + length));
    offset += length + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: offset + 1 };
}

async function startFakeDns(): Promise<FakeDns> {
  const socket: Socket = createSocket('udp4');
  const queries = new Map<string, number>();
  socket.on('message', (message, peer) => {
    const { name, end } = readName(message, 12);
    queries.set(name, (queries.get(name) ?? 0) + 1);
    if (name.endsWith('never.test')) return; // the DNS that never answers
    const type = message.readUInt16BE(end);
    const question = message.subarray(12, end + 4);
    const header = Buffer.alloc(12);
    message.copy(header, 0, 0, 2); // the id
    header.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    header.writeUInt16BE(1, 4);
    const isA = type === 1 && name === 'good.test';
    header.writeUInt16BE(isA ? 1 : 0, 6);
    const record = isA ? Buffer.from([0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 127, 0, 0, 1]) : Buffer.alloc(0);
    socket.send(Buffer.concat([header, question, record]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    queries,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

let dns: FakeDns;
let site: FakeSite;

describe('the cancellable resolver', () => {
  before(async () => {
    dns = await startFakeDns();
  });
  after(() => dns.close());

  test('asks A and AAAA and returns what there is', async () => {
    const resolve = createDnsResolver({ servers: [dns.server], timeoutMs: 2_000 });
    assert.deepEqual(await resolve('good.test'), [{ address: '127.0.0.1', family: 4 }]);
  });

  test('a name that never answers ends with our own DnsTimeout', async () => {
    const resolve = createDnsResolver({ servers: [dns.server], timeoutMs: 300 });
    await assert.rejects(resolve('silent.never.test'), DnsTimeout);
  });

  test('an abort cancels the lookup at once', async () => {
    const resolve = createDnsResolver({ servers: [dns.server], timeoutMs: 60_000 });
    const controller = new AbortController();
    const lookup = resolve('cancelled.never.test', controller.signal);
    setTimeout(() => controller.abort(new Error('stopping')), 50);
    await assert.rejects(
      lookup,
      (err: NodeJS.ErrnoException) => err.code === 'ECANCELLED' || /stopping/.test(err.message),
    );
  });

  test('localhost names are loopback without asking anyone (the guard then refuses them)', async () => {
    const resolve = createDnsResolver({ servers: [dns.server] });
    assert.deepEqual(
      (await resolve('LocalHost')).map((a) => a.address),
      ['127.0.0.1', '::1'],
    );
    assert.equal(dns.queries.has('localhost'), false);
  });
});

describe('previews while a DNS never answers', () => {
  const t = useBoard({
    prepare: async () => {
      dns = await startFakeDns();
      site = await startFakeSite({ '/page': answer(page('<title>Good page</title>')) });
    },
    env: () => previewEnv([site.port]),
    start: () => ({ preview: { dns: { servers: [dns.server], timeoutMs: 300 }, timeoutMs: 3_000 } }),
    members: ['linda'],
  });
  after(async () => {
    await site.close();
    await dns.close();
  });

  test('four links to a silent name do not make a good link fail; their DNS timeout is not recorded as a failure, the jobs come back later', async () => {
    const silent = [1, 2, 3, 4].map((i) => `http://site${i}.never.test:${site.port}/`);
    for (const url of silent) await post(t.members.linda, `kaputt ${url}`);
    const good = `http://good.test:${site.port}/page`;
    await post(t.members.linda, `gut ${good}`);
    assert.equal(await eventually('the good preview', () => previewRow(t.board, good)?.title), 'Good page');
    await eventually('the silent lookups gave up', () =>
      silent.every((url) => dns.queries.has(new URL(url).hostname)) && jobsDeferred(silent) ? 'yes' : undefined,
    );
    for (const url of silent) assert.equal(previewRow(t.board, url)?.failed_at ?? 0, 0, `${url}: no failure recorded`);
  });

  function jobsDeferred(urls: string[]): boolean {
    const now = t.board.clock.now();
    const jobs = t.board.app.services.db.all<{ url: string; not_before: number; attempts: number }>(
      'SELECT url, not_before, attempts FROM preview_jobs',
    );
    return urls.every((url) =>
      jobs.some((j) => j.url === url && j.not_before > now && j.not_before <= now + 60 && j.attempts === 1),
    );
  }
});
