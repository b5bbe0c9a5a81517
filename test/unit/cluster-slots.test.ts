import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { test } from 'node:test';
import { remoteSemaphore, serveSlots, type SlotMessage } from '../../lib/process/cluster/slots-ipc.ts';
import { SlotRefused } from '../../lib/host/semaphore.ts';
import type { SlotPool } from '../../lib/host/machine-slots.ts';
import { searchQueueBound } from '../../lib/search/threads.ts';

/** A worker as the primary sees it, wired straight to a remote semaphore of one pool in this process. */
function fakeWorker(server: ReturnType<typeof serveSlots>, pool: SlotPool = 'hash') {
  let onGrant: (id: number) => void = () => {};
  const worker = {
    isConnected: () => true,
    send: (message: SlotMessage) => void setImmediate(() => onGrant(message.id)),
  } as unknown as Worker;
  const semaphore = remoteSemaphore(
    pool,
    (message) => setImmediate(() => server.handle(worker, message)),
    (listener) => {
      onGrant = listener;
    },
  );
  return { worker, semaphore };
}

/** Waits until `check` holds (messages hop through setImmediate, as IPC would), failing after a second. */
async function until(what: string, check: () => boolean): Promise<void> {
  for (const deadline = Date.now() + 1000; !check(); ) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

test("two workers share the machine's two hashing slots; a dead worker's slots and places in line are given back", async () => {
  const server = serveSlots();
  const [a, b] = [fakeWorker(server), fakeWorker(server)];
  let running = 0;
  let most = 0;
  const releases = new Map<string, () => void>();
  const job = (name: string) => () =>
    new Promise<void>((resolve) => {
      running++;
      most = Math.max(most, running);
      releases.set(name, () => {
        running--;
        resolve();
      });
    });
  void a.semaphore(job('a1'));
  void a.semaphore(job('a2'));
  const fromB = [b.semaphore(job('b1')), b.semaphore(job('b2'))];
  await until('a holds both slots', () => releases.has('a1') && releases.has('a2'));
  assert.deepEqual(server.load('hash'), { running: 2, waiting: 2, peak: 2 });
  assert.equal(b.semaphore.load().waiting, 2);
  running -= 2; // worker a dies with its two jobs
  server.forget(a.worker);
  await until('b got both slots', () => releases.has('b1') && releases.has('b2'));
  releases.get('b1')!();
  releases.get('b2')!();
  await Promise.all(fromB);
  await until('all slots free', () => server.load('hash').running === 0);
  assert.deepEqual(server.load('hash'), { running: 0, waiting: 0, peak: 2 });
  assert.equal(most, 2, 'never more than two at once');
});

test("a worker's line is bounded like a local one, and a caller that gives up leaves the primary's line", async () => {
  const server = serveSlots();
  const a = fakeWorker(server);
  const hold: (() => void)[] = [];
  const holding = () => new Promise<void>((resolve) => hold.push(resolve));
  const held = [a.semaphore(holding), a.semaphore(holding)];
  await until('both slots held', () => hold.length === 2);
  await assert.rejects(
    a.semaphore(holding, undefined, { maxWaiting: 0, maxWaitMs: 1000 }),
    (err) => err instanceof SlotRefused && err.reason === 'full',
  );
  const controller = new AbortController();
  const waiting = a.semaphore(holding, controller.signal);
  await until('one waiting in the primary', () => server.load('hash').waiting === 1);
  controller.abort(new Error('client gone'));
  await assert.rejects(waiting, /client gone/);
  await until("it left the primary's line", () => server.load('hash').waiting === 0);
  for (const release of hold.splice(0)) release();
  await Promise.all(held);
  await until('all slots free', () => server.load('hash').running === 0);
});

test("searches are bounded on the machine: two workers' searches run two at once, the rest wait in the primary's line; each worker's line is bounded", async () => {
  const server = serveSlots();
  const [a, b] = [fakeWorker(server, 'search'), fakeWorker(server, 'search')];
  const hold: (() => void)[] = [];
  const holding = () => new Promise<void>((resolve) => hold.push(resolve));
  const search = (worker: typeof a) => worker.semaphore(holding, undefined, searchQueueBound);
  const jobs = [search(a), search(b)];
  await until('one search running in each worker', () => hold.length === 2);
  for (let i = 0; i < 6; i++) jobs.push(search(i % 2 ? a : b));
  await until("six searches in the primary's line", () => server.load('search').waiting === 6);
  assert.deepEqual(server.load('search'), { running: 2, waiting: 6, peak: 2 });
  assert.equal(hold.length, 2, 'no third search runs');
  assert.deepEqual(server.load('hash'), { running: 0, waiting: 0, peak: 0 }, 'a pool of its own');
  // The waiting bound counts per process (lib/cluster/slots.ts): worker a has 3 waiting, room for 5 more.
  for (let i = 0; i < searchQueueBound.maxWaiting - 3; i++) jobs.push(search(a));
  await assert.rejects(search(a), (err) => err instanceof SlotRefused && err.reason === 'full');
  for (let released = 0; released < jobs.length; released++) {
    await until('the next search got its slot', () => hold.length > 0);
    assert.ok(server.load('search').running <= 2);
    hold.shift()!();
  }
  await Promise.all(jobs);
  await until('all slots free', () => server.load('search').running === 0);
  assert.equal(server.load('search').peak, 2, 'never more than two at once');
});
