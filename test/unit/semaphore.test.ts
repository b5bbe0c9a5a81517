import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSemaphore, SlotRefused } from '../../lib/host/semaphore.ts';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test('at most `limit` jobs run at once, the rest in order', async () => {
  const withSlot = createSemaphore(2);
  const gates = [deferred(), deferred(), deferred(), deferred()];
  const started: number[] = [];
  const jobs = gates.map((gate, i) =>
    withSlot(async () => {
      started.push(i);
      await gate.promise;
      return i;
    }),
  );
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1]);
  gates[1]!.resolve();
  await jobs[1];
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, [0, 1, 2]);
  for (const gate of gates) gate.resolve();
  assert.deepEqual(await Promise.all(jobs), [0, 1, 2, 3]);
});

test('a waiting job whose signal aborts leaves the queue without running, and the next one gets the slot', async () => {
  const withSlot = createSemaphore(1);
  const gate = deferred();
  const ran: string[] = [];
  const first = withSlot(async () => {
    ran.push('first');
    await gate.promise;
  });
  const controller = new AbortController();
  const abandoned = withSlot(async () => {
    ran.push('abandoned');
  }, controller.signal);
  const third = withSlot(async () => {
    ran.push('third');
  });
  controller.abort(new Error('client went away'));
  await assert.rejects(abandoned, /client went away/);
  gate.resolve();
  await Promise.all([first, third]);
  assert.deepEqual(ran, ['first', 'third']);
});

test('an already aborted signal never takes a slot', async () => {
  const withSlot = createSemaphore(1);
  const controller = new AbortController();
  controller.abort(new Error('gone'));
  let ran = false;
  await assert.rejects(
    withSlot(async () => {
      ran = true;
    }, controller.signal),
    /gone/,
  );
  assert.equal(ran, false);
  assert.equal(await withSlot(async () => 'free'), 'free', 'the slot was not leaked');
});

test('a failing job frees its slot', async () => {
  const withSlot = createSemaphore(1);
  await assert.rejects(
    withSlot(async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(await withSlot(async () => 'next'), 'next');
});

test('a bounded line refuses a job when it is full; the jobs in it still run, and an unbounded job may still join', async () => {
  const withSlot = createSemaphore(1);
  const gate = deferred();
  const bound = { maxWaiting: 2, maxWaitMs: 60_000 };
  const first = withSlot(() => gate.promise, undefined, bound);
  const waiting = [withSlot(async () => 'a', undefined, bound), withSlot(async () => 'b', undefined, bound)];
  await assert.rejects(
    withSlot(async () => 'c', undefined, bound),
    (err: unknown) => err instanceof SlotRefused && err.reason === 'full',
  );
  const unbounded = withSlot(async () => 'u');
  gate.resolve();
  await first;
  assert.deepEqual(await Promise.all([...waiting, unbounded]), ['a', 'b', 'u']);
});

test('a bounded job that waited maxWaitMs leaves the line refused, and the slot is not leaked', async () => {
  const withSlot = createSemaphore(1);
  const gate = deferred();
  const first = withSlot(() => gate.promise);
  let ran = false;
  const waited = withSlot(
    async () => {
      ran = true;
    },
    undefined,
    { maxWaiting: 10, maxWaitMs: 20 },
  );
  await assert.rejects(waited, (err: unknown) => err instanceof SlotRefused && err.reason === 'waited');
  gate.resolve();
  await first;
  assert.equal(ran, false);
  assert.equal(await withSlot(async () => 'free'), 'free');
});
