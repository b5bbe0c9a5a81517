import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { afterEach, describe, test } from 'node:test';
import {
  eventually,
  followersTold,
  limitsOff,
  member,
  password,
  post,
  startProxiedBoard,
  uidOf,
  useBoard,
  type Client,
  type TestBoard,
  emptyFolder,
} from '../helpers.ts';

/**
 * docs/API.md "Following threads": a reply's followers are told after its create committed, by
 * a background job in batches of followers (lib/notifications/thread-replies.ts). The tests hold
 * the job at a gate before each batch and set its batch size, so they decide the order of events.
 */

/** Holds the fan-out job before each batch, once `hold()` was called, until the test lets one through or opens it again. */
function batchGate() {
  const waiting: (() => void)[] = [];
  let open = true;
  return {
    hold(): void {
      open = false;
    },
    async pass(): Promise<void> {
      if (!open) await new Promise<void>((resolve) => waiting.push(resolve));
    },
    /** Settles once a batch waits at the gate. */
    reached: () => eventually('a batch waits at the gate', () => waiting.length > 0),
    /** Lets the waiting batch go. */
    step(): void {
      waiting.shift()!();
    },
    openAll(): void {
      open = true;
      for (const release of waiting.splice(0)) release();
    },
  };
}

interface Told {
  uid: number;
  thread: number;
}

/** The thread_reply notification rows of one reply, by account. */
function toldOf(board: TestBoard, pid: number): Told[] {
  return board.app.services.db.all<Told>(
    "SELECT uid, thread FROM notifications WHERE pid = ? AND kind = 'thread_reply' ORDER BY uid",
    pid,
  );
}

function queued(board: TestBoard): { pid: number; after_uid: number }[] {
  return board.app.services.db.all('SELECT pid, after_uid FROM thread_reply_fanout ORDER BY id');
}

/** Accounts straight into the table, each following `pid`: what many follow requests would have written. */
function addFollowers(board: TestBoard, pid: number, count: number): number[] {
  const db = board.app.services.db;
  return db.tx(() =>
    Array.from({ length: count }, (_, i) => {
      const name = `leser${pid}x${i}`;
      const { lastInsertRowid: uid } = db.run(
        `INSERT INTO users (username, username_key, name_skeleton, pass_hash, created_at) VALUES (?, ?, ?, 'x', 0)`,
        name,
        name,
        name,
      );
      db.run('INSERT INTO follows (uid, pid, created_at) VALUES (?, ?, 0)', uid, pid);
      return uid;
    }),
  );
}

describe('following: the fan-out after the create', () => {
  const gate = batchGate();
  const t = useBoard({
    env: limitsOff,
    start: { threadReplies: { batchSize: 3, beforeBatch: () => gate.pass() } },
    members: ['Anna', 'Bert', 'Carla'],
  });
  afterEach(() => gate.openAll());

  test('the create’s transaction writes the reply and one queue row, no notification; the job then tells every follower', async () => {
    const { Anna, Bert } = t.members;
    const top = await post(Anna, 'Ein Thread mit vielen Lesern.');
    const mid = await post(Bert, 'Bert fängt an.', top);
    await followersTold(t.board);
    const readers = addFollowers(t.board, top, 10);
    gate.hold();
    const answer = await Bert.post('/api/entry/create', { content: 'Bert antwortet sich selbst.', reply_to: mid });
    assert.equal(answer.status, 201, answer.text);
    const reply = answer.body.pid as number;
    await gate.reached();
    // Held before its first batch: the reply is stored and answered, its followers not yet told.
    assert.ok(t.board.app.services.db.one('SELECT 1 FROM entries WHERE pid = ?', reply), 'the reply is committed');
    assert.deepEqual(queued(t.board), [{ pid: reply, after_uid: 0 }]);
    assert.deepEqual(toldOf(t.board, reply), [], 'no notification in the create’s transaction');
    gate.openAll();
    const anna = uidOf(t.board, 'Anna');
    const expected = [anna, ...readers].sort((a, b) => a - b).map((uid) => ({ uid, thread: top }));
    await eventually('every follower told', () => toldOf(t.board, reply).length === expected.length);
    assert.deepEqual(toldOf(t.board, reply), expected, 'each follower once, through the followed thread; not Bert');
    assert.deepEqual(queued(t.board), []);
  });

  test('a reply whose author deleted the account before the job’s turn tells nobody', async () => {
    const { Anna } = t.members;
    const dora = await member(t.board, 'Dora');
    const top = await post(Anna, 'Dora schreibt und geht.');
    const mid = await post(dora, 'Doras Ebene.', top);
    await followersTold(t.board);
    gate.hold();
    const reply = await post(dora, 'Doras letzte Antwort.', mid);
    await gate.reached();
    const deleted = await dora.post('/api/user/delete', { pass1: password });
    assert.equal(deleted.status, 200, deleted.text);
    gate.openAll();
    await followersTold(t.board);
    assert.deepEqual(toldOf(t.board, reply), []);
  });

  test('a reply nobody but its author follows queues nothing', async () => {
    const { Carla } = t.members;
    assert.equal((await Carla.post('/api/user/following/own-threads', { follow: '0' })).status, 200);
    const top = await post(Carla, 'Niemand folgt.');
    await post(Carla, 'Ich antworte mir.', await post(Carla, 'Erste.', top));
    assert.deepEqual(queued(t.board), []);
  });
});

describe('following: a crash between two batches', () => {
  const dataDir = emptyFolder('board-fanout-');
  const gate = batchGate();
  let board: TestBoard | undefined;
  afterEach(async () => {
    gate.openAll();
    board?.app.services.db.setFault(undefined);
    await board?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('loses no follower and tells none twice; mutes and deletions of meanwhile count; a failed batch stores nothing', async () => {
    board = await startProxiedBoard(limitsOff, {
      dataDir,
      threadReplies: { batchSize: 2, beforeBatch: () => gate.pass() },
    });
    const names = ['Anna', 'Bert', 'Cora', 'Dana', 'Emil', 'Fritz', 'Gina', 'Hugo'] as const;
    const clients = {} as Record<(typeof names)[number], Client>;
    for (const name of names) clients[name] = await member(board, name);
    const uid = Object.fromEntries(names.map((name) => [name, uidOf(board!, name)])) as Record<string, number>;
    const top = await post(clients.Anna, 'Ein Thread, dem alle folgen.'); // Anna follows it by default
    const mid = await post(clients.Bert, 'Bert schreibt unten weiter.', top);
    for (const name of names.slice(1)) {
      const answer = await clients[name].post(`/api/entry/${top}/follow`);
      assert.equal(answer.status, 200, answer.text);
    }
    await followersTold(board);
    gate.hold();
    // Bert answers himself: nobody gets a `reply`, every follower but Bert a thread_reply.
    const reply = await post(clients.Bert, 'Die Antwort, die alle erfahren sollen.', mid);
    await gate.reached();
    assert.deepEqual(toldOf(board, reply), [], 'held before the first batch');
    gate.step(); // batch 1: Anna and Bert (Bert is the author: only Anna is told)
    await gate.reached();
    assert.deepEqual(toldOf(board, reply), [{ uid: uid.Anna!, thread: top }]);
    assert.deepEqual(queued(board), [{ pid: reply, after_uid: uid.Bert }]);

    // Meanwhile Fritz mutes Bert, and Hugo deletes his account.
    assert.equal((await clients.Fritz.post('/api/user/mute', { user: 'Bert' })).status, 200);
    assert.equal((await clients.Hugo.post('/api/user/delete', { pass1: password })).status, 200);

    // Batch 2 (Cora, Dana) fails at its COMMIT, as a full disk or a killed process would end it.
    board.app.services.db.setFault((sql) => (sql === 'COMMIT' ? new Error('simulated: disk I/O error') : undefined));
    gate.step();
    await eventually('the failed batch is logged', () =>
      board!.logs.some((line) => line.includes('telling followers failed')),
    );
    board.app.services.db.setFault(undefined);
    assert.deepEqual(toldOf(board, reply), [{ uid: uid.Anna!, thread: top }], 'the failed batch stored nothing');
    assert.deepEqual(queued(board), [{ pid: reply, after_uid: uid.Bert }], 'and did not move on');

    // The process ends here: nothing but the database survives.
    const job = board.app.jobs!.threadReplies;
    const stopped = job.stop();
    gate.openAll();
    await stopped;
    await board.close();
    board = await startProxiedBoard(limitsOff, { dataDir });
    await followersTold(board);
    assert.deepEqual(
      toldOf(board, reply),
      ['Anna', 'Cora', 'Dana', 'Emil', 'Gina'].map((name) => ({ uid: uid[name]!, thread: top })),
      'each follower exactly once; not the author, not Fritz who muted him, not Hugo who is gone',
    );
    assert.deepEqual(queued(board), []);
  });
});
