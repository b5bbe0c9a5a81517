import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { deliveryLifetimeSeconds, deliveryRetrySeconds } from '../../lib/federation/delivery.ts';
import { banUser } from '../../lib/moderation/accounts.ts';
import { permanentBan } from '../../lib/accounts/bans.ts';
import {
  day,
  emptyFolder,
  eventually,
  member,
  startBoard,
  uidOf,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';
import { federatedEnv, federationWaitMs, freePorts, lookUpActor, storeFollower } from '../helpers/federation.ts';

/**
 * docs/OPERATIONS.md "Federation", "Delivery": followers on hostile instances (an inbox that holds
 * the answer, answers 500, answers a huge body, redirects to another address, or never answers at
 * all) cost the board a bounded slot each, never more than their timeout; nothing the board sends
 * names a visitor; readers are answered meanwhile; a retry waits for the board's own clock and a
 * delivery is given up after two days. The fake instances are node:http servers on 127.0.0.1.
 */

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

describe('deliveries to hostile instances', () => {
  let board: TestBoard;
  let anna: Client;
  const servers: (Server | TcpServer)[] = [];
  const seen = new Map<string, Seen[]>();
  const sockets = new Set<Socket>();
  let holdSlow: (() => void) | undefined;
  let ports: number[] = [];
  const hosts: Record<string, string> = {};
  let hugeBytesWritten = 0;

  const kinds = ['slow', 'error', 'huge', 'redirect', 'silent', 'canary', 'good', 'private'] as const;
  type Kind = (typeof kinds)[number];

  /** A fake instance's answer to an inbox POST, by kind. */
  function answer(kind: Kind, req: IncomingMessage, res: ServerResponse, body: string): void {
    seen.get(kind)!.push({ path: req.url ?? '', headers: req.headers, body });
    if (kind === 'slow') {
      holdSlow = () => res.writeHead(202).end();
      return;
    }
    if (kind === 'error') return void res.writeHead(500).end('kaputt');
    // A fetch of its actor is sent on to a private address: the loopback 127.0.0.2, outside the allowance.
    if (kind === 'redirect' && req.method === 'GET')
      return void res.writeHead(302, { location: `http://${hosts.private}/users/private` }).end();
    if (kind === 'redirect') return void res.writeHead(307, { location: `http://${hosts.canary}/ap/inbox` }).end();
    if (kind === 'huge') {
      // 64 MiB offered, written as fast as the board reads: the board reads a few KiB and hangs up.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const write = () => {
        while (hugeBytesWritten < 64 * 1024 * 1024) {
          hugeBytesWritten += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', write);
        }
        res.end();
      };
      res.on('error', () => {});
      return write();
    }
    res.writeHead(202).end();
  }

  before(async () => {
    ports = await freePorts(kinds.length + 1);
    const [boardPort, ...instancePorts] = ports;
    for (const [i, kind] of kinds.entries()) {
      seen.set(kind, []);
      const address = kind === 'private' ? '127.0.0.2' : '127.0.0.1';
      hosts[kind] = `${address}:${instancePorts[i]}`;
      const server =
        kind === 'silent'
          ? // Takes the connection and the request and never says a word.
            createTcpServer((socket) => {
              sockets.add(socket);
              socket.on('data', () => seen.get('silent')!.push({ path: '', headers: {}, body: '' }));
              socket.on('error', () => {});
            })
          : createServer((req, res) => {
              let body = '';
              req.on('data', (chunk) => (body += chunk));
              req.on('end', () => answer(kind, req, res, body));
            });
      await new Promise<void>((resolve) => server.listen(instancePorts[i], address, resolve));
      servers.push(server);
    }
    board = await startBoard(
      { ...federatedEnv(boardPort!, ports, 'open'), BOARD_TRUST_PROXY: '1', BOARD_METRICS_PORT: '0' },
      { port: boardPort, federation: { timeoutMs: 1_000, queuePollMs: 20, delivery: { pollMs: 20, perInstance: 1 } } },
    );
    anna = await member(board, 'Anna', '198.51.100.7');
    // One follower of the Group on each instance, as a Follow would have stored it.
    const db = board.app.services.db;
    for (const kind of kinds) {
      if (kind === 'canary' || kind === 'private') continue;
      storeFollower(db, { host: hosts[kind]!, name: kind }, board.clock.now());
    }
    // A second account on the good instance, behind the same shared inbox: still one POST per activity there.
    storeFollower(db, { host: hosts.good!, name: 'good-2' }, board.clock.now());
  });
  after(async () => {
    holdSlow?.();
    for (const socket of sockets) socket.destroy();
    await board?.close();
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
  });

  const waiting = (kind: Kind) =>
    board.app.services.db.one<{ tries: number; not_before: number }>(
      'SELECT tries, not_before FROM federation_deliveries WHERE host = ? ORDER BY id LIMIT 1',
      hosts[kind],
    );
  const instance = (kind: Kind) =>
    board.app.services.db.one<{ delivered: number; failed: number }>(
      'SELECT delivered, failed FROM federation_instances WHERE host = ?',
      hosts[kind],
    );

  test('every instance gets its POST; the held one waits while readers are answered', async () => {
    const created = await anna.postMultipart('/api/entry/create', { content: 'Hallo an alle Instanzen' });
    assert.equal(created.status, 201);
    await eventually('the slow instance holds its POST', () => holdSlow, federationWaitMs);
    // A reader while a delivery hangs: the page and the feed answer at once.
    const reader = visitor(board);
    assert.equal((await reader.get('/api/entry/feed/0')).status, 200);
    assert.equal((await reader.get(`/e/${created.body.pid}`)).status, 200);
    await eventually(
      'the good instance took its deliveries',
      () => (instance('good')?.delivered ?? 0) >= 2,
      federationWaitMs,
    );
    // Two followers there, one shared inbox: the Group's two activities (its Announce of the Create, its boost) once each.
    assert.deepEqual(
      seen.get('good')!.map((request) => request.path),
      ['/ap/inbox', '/ap/inbox'],
    );
    // The held POST ends at its timeout, and the delivery waits for its next try: its slot is free again.
    await eventually('the held delivery is queued again', () => (waiting('slow')?.tries ?? 0) >= 1, federationWaitMs);
  });

  test('nothing sent names a visitor: only the activity, signed', async () => {
    const [first] = seen.get('good')!;
    assert.ok(first);
    for (const name of ['x-forwarded-for', 'x-real-ip', 'forwarded', 'cookie', 'referer'])
      assert.equal(first.headers[name], undefined, name);
    assert.ok(first.headers.signature || first.headers['signature-input'], 'signed');
    assert.doesNotMatch(first.body, /198\.51\.100\.7/);
    assert.equal(JSON.parse(first.body).actor, `${board.config.origin}/ap/actor/board`);
  });

  test('a 500 and a redirect are tried again when the clock says so; the redirect is never followed', async () => {
    const error = await eventually(
      'the 500 is queued again',
      () => (waiting('error')?.tries ? waiting('error') : undefined),
      federationWaitMs,
    );
    assert.equal(error.not_before - board.clock.now() >= deliveryRetrySeconds(1) - 1, true);
    const redirect = await eventually(
      'the redirect is queued again',
      () => (waiting('redirect')?.tries ? waiting('redirect') : undefined),
      federationWaitMs,
    );
    assert.equal(redirect.tries, 1);
    assert.equal(seen.get('canary')!.length, 0, 'the redirect target got nothing');
    const triedBefore = seen.get('error')!.length;
    board.clock.advance(deliveryRetrySeconds(1) + 1);
    await eventually('the 500 is tried again', () => seen.get('error')!.length > triedBefore, federationWaitMs);
    assert.equal(seen.get('canary')!.length, 0);
  });

  test('an actor fetched from an instance that redirects to a private address is refused; nothing reaches it', async () => {
    await assert.rejects(lookUpActor(board, `http://${hosts.redirect}/users/redirect`), /no actor/);
    assert.ok(
      seen.get('redirect')!.some((request) => request.path === '/users/redirect'),
      'the first request was made',
    );
    assert.equal(seen.get('private')!.length, 0, 'the private address got nothing');
  });

  test('a body too large is cut off, and an instance that never answers holds its slot for its timeout only', async () => {
    await eventually(
      'the huge answer counts as taken',
      () => (instance('huge')?.delivered ?? 0) >= 1,
      federationWaitMs,
    );
    assert.ok(hugeBytesWritten < 64 * 1024 * 1024, `the board stopped reading (${hugeBytesWritten} bytes written)`);
    await eventually('the silent instance got the POST', () => seen.get('silent')!.length > 0, federationWaitMs);
    await eventually(
      'the silent one is queued again after its timeout',
      () => (waiting('silent')?.tries ?? 0) >= 1,
      federationWaitMs,
    );
  });

  test('after two days of failures a delivery is given up and counted, and the metrics say so', async () => {
    board.clock.advance(deliveryLifetimeSeconds + day);
    await eventually(
      'the 500 is given up',
      () => (instance('error')?.failed ?? 0) >= 1 && !waiting('error'),
      federationWaitMs,
    );
    const metrics = await (await fetch(`${board.metricsUrl}/metrics`)).text();
    const line = (host: string, outcome: string) =>
      new RegExp(
        `board_federation_deliveries_total\\{instance="${host.replace(/\./g, '\\.')}",outcome="${outcome}"\\} ([0-9]+)`,
      );
    assert.equal(line(hosts.error!, 'failed').exec(metrics)?.[1], String(instance('error')!.failed));
    assert.ok(Number(line(hosts.good!, 'delivered').exec(metrics)?.[1]) >= 2);
    assert.match(metrics, /^board_federation_oldest_waiting_seconds \d+$/m);
  });
});

describe('a banned account stops federating', () => {
  let board: TestBoard;
  let server: Server;
  const posts: string[] = [];
  before(async () => {
    const [boardPort, instancePort] = await freePorts(2);
    // An instance that fails every POST, so each delivery waits for its next try.
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        posts.push(req.url ?? '');
        res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(instancePort, '127.0.0.1', resolve));
    board = await startBoard(federatedEnv(boardPort!, [boardPort!, instancePort!], 'open'), {
      port: boardPort,
      federation: { queuePollMs: 20, delivery: { pollMs: 20 } },
    });
  });
  after(async () => {
    await board?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  test("a delivery of a banned account's act waiting for its retry is dropped, not sent again", async () => {
    const anna = await member(board, 'Anna');
    const db = board.app.services.db;
    const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
    storeFollower(db, { host, name: 'f', target: uidOf(board, 'Anna'), sharedInbox: '' }, board.clock.now());
    assert.equal((await anna.postMultipart('/api/entry/create', { content: 'Vor dem Bann' })).status, 201);
    const waiting = () => db.one<{ tries: number }>('SELECT tries FROM federation_deliveries WHERE host = ?', host);
    // A refused try is knocked a second time with the other signature: two POSTs, then the wait.
    await eventually('the Create failed once', () => (waiting()?.tries ?? 0) >= 1, federationWaitMs);
    const sent = posts.length;
    banUser(db, uidOf(board, 'Anna'), { until: permanentBan, reason: 'Spam', purge: false }, 0, board.clock.now());
    board.clock.advance(deliveryRetrySeconds(1) + 1);
    await eventually('the delivery is dropped', () => waiting() === undefined, federationWaitMs);
    assert.equal(posts.length, sent, 'nothing more was sent');
  });

  test("the Group's Announce of a banned account's act, waiting for its retry, is dropped too", async () => {
    const berta = await member(board, 'Berta');
    const db = board.app.services.db;
    const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
    // Only the Group is followed there: what waits is the Group's Announce and boost, signed by the Group.
    storeFollower(db, { host, name: 'g', target: 0, sharedInbox: '' }, board.clock.now());
    assert.equal((await berta.postMultipart('/api/entry/create', { content: 'Auch vor dem Bann' })).status, 201);
    const waiting = () =>
      db.all<{ tries: number }>(
        `SELECT d.tries FROM federation_deliveries d JOIN federation_activities a ON a.id = d.activity_id
         WHERE d.host = ? AND a.signer_uid = 0 AND a.body LIKE '%Auch vor dem Bann%'`,
        host,
      );
    await eventually(
      "the Group's activities failed once",
      () => waiting().length === 2 && waiting().every((row) => row.tries >= 1),
      federationWaitMs,
    );
    const sent = posts.length;
    banUser(db, uidOf(board, 'Berta'), { until: permanentBan, reason: 'Spam', purge: false }, 0, board.clock.now());
    board.clock.advance(deliveryRetrySeconds(1) + 1);
    await eventually('the deliveries are dropped', () => waiting().length === 0, federationWaitMs);
    assert.equal(posts.length, sent, 'nothing more was sent');
  });
});

describe('deliveries survive a restart', () => {
  let dataDir: string;
  let server: Server;
  let failing = true;
  const posts: string[] = [];
  before(async () => {
    dataDir = emptyFolder('board-fed-restart-');
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        posts.push(req.url ?? '');
        res.writeHead(failing ? 503 : 202).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    await new Promise((resolve) => server?.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a delivery waiting when the board stops is sent by the next start', async () => {
    const [boardPort] = await freePorts(1);
    const instancePort = (server.address() as { port: number }).port;
    const host = `127.0.0.1:${instancePort}`;
    const start = () =>
      startBoard(federatedEnv(boardPort!, [boardPort!, instancePort], 'open'), {
        port: boardPort,
        dataDir,
        federation: { queuePollMs: 20, delivery: { pollMs: 20 } },
      });
    const first = await start();
    let second: TestBoard | undefined;
    try {
      const db = first.app.services.db;
      storeFollower(db, { host, name: 'f', sharedInbox: `http://${host}/inbox` }, first.clock.now());
      const anna = await member(first, 'Anna');
      assert.equal((await anna.postMultipart('/api/entry/create', { content: 'Über den Neustart' })).status, 201);
      const waiting = (board: TestBoard) =>
        board.app.services.db.value('SELECT count(*) FROM federation_deliveries WHERE host = ? AND tries > 0', host);
      await eventually('both deliveries failed once', () => waiting(first) === 2 || undefined, federationWaitMs);
      await first.close();
      failing = false;
      const tried = posts.length;
      second = await start();
      second.clock.advance(deliveryRetrySeconds(1) + 1);
      await eventually(
        'the next start delivers them',
        () =>
          second!.app.services.db.value('SELECT count(*) FROM federation_deliveries') === 0 &&
          second!.app.services.db.value('SELECT delivered FROM federation_instances WHERE host = ?', host) === 2
            ? true
            : undefined,
        federationWaitMs,
      );
      assert.deepEqual(posts.slice(tried), ['/inbox', '/inbox']);
    } finally {
      await second?.close();
      await first.close().catch(() => {});
    }
  });
});
