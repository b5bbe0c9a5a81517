import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { eventually, member, startBoard, type Client, type TestBoard } from '../helpers.ts';
import { federatedEnv, federationWaitMs, freePorts, storeFollower } from '../helpers/federation.ts';

/**
 * docs/OPERATIONS.md "Federation": deliveries are signed and POSTed on a thread of their own, so the
 * event loop that answers readers only picks and settles rows. Proven without timing: the fake
 * instance runs on a thread of its own too, and counts each POST it took in shared memory; once a
 * delivery has started, the test holds the board's event loop with Atomics.wait until that count
 * grows. Work left to the event loop could not go on while it is held.
 */

/** Shared counters of the fake inbox: [0] POSTs taken whole, [1] 1 while answers are held. */
const taken = 0;
const holding = 1;

describe('deliveries on the delivery thread', () => {
  let board: TestBoard;
  let anna: Client;
  let inbox: Worker;
  let host = '';
  const shared = new Int32Array(new SharedArrayBuffer(8));

  before(async () => {
    const [boardPort, inboxPort] = await freePorts(2);
    host = `127.0.0.1:${inboxPort}`;
    inbox = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const { createServer } = require('node:http');
       const shared = new Int32Array(workerData.shared);
       const held = [];
       const server = createServer((req, res) => {
         req.resume();
         req.on('end', () => {
           Atomics.add(shared, ${taken}, 1);
           Atomics.notify(shared, ${taken});
           if (Atomics.load(shared, ${holding})) held.push(res);
           else res.writeHead(202).end();
         });
       });
       server.listen(workerData.port, '127.0.0.1', () => parentPort.postMessage('listening'));
       parentPort.on('message', () => { for (const res of held.splice(0)) res.writeHead(202).end(); });`,
      { eval: true, workerData: { shared: shared.buffer, port: inboxPort } },
    );
    await new Promise((resolve, reject) => inbox.once('message', resolve).once('error', reject));
    board = await startBoard(federatedEnv(boardPort!, [boardPort!, inboxPort!], 'open'), {
      port: boardPort,
      federation: { queuePollMs: 20, delivery: { pollMs: 20 } },
    });
    storeFollower(board.app.services.db, { host, name: 'f', sharedInbox: `http://${host}/inbox` }, board.clock.now());
    anna = await member(board, 'Anna');
  });
  after(async () => {
    Atomics.store(shared, holding, 0);
    inbox?.postMessage('release');
    await board?.close();
    await inbox?.terminate();
  });

  const waiting = () => board.app.services.db.value('SELECT count(*) FROM federation_deliveries');
  const delivered = () =>
    board.app.services.db.one<{ delivered: number }>('SELECT delivered FROM federation_instances WHERE host = ?', host)
      ?.delivered ?? 0;

  test("the inbox takes a delivery's POST while the board's event loop is held", async () => {
    // A first entry: its deliveries settle the usual way, and the Group's key is with the thread.
    assert.equal((await anna.postMultipart('/api/entry/create', { content: 'Erster Gruß' })).status, 201);
    await eventually('the first deliveries', () => waiting() === 0 && delivered() > 0, federationWaitMs);
    const before = Atomics.load(shared, taken);
    Atomics.store(shared, holding, 1);
    assert.equal((await anna.postMultipart('/api/entry/create', { content: 'Zweiter Gruß' })).status, 201);
    // Looks on every turn of the event loop, so the hold begins in the turn the delivery started in.
    await new Promise<void>((resolve) => {
      const look = () => ((board.app.jobs?.federation?.stats()?.running ?? 0) > 0 ? resolve() : setImmediate(look));
      look();
    });
    const woken = Atomics.wait(shared, taken, before, federationWaitMs);
    assert.notEqual(woken, 'timed-out', 'the POST arrived while the event loop was held');
    Atomics.store(shared, holding, 0);
    inbox.postMessage('release');
    await eventually('the held deliveries settle', () => waiting() === 0, federationWaitMs);
    assert.equal(delivered(), Atomics.load(shared, taken), 'each POST the inbox took is counted as delivered');
  });
});
