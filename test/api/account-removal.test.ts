import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { removeAccountSlice } from '../../lib/account-data/removal.ts';
import { openDb, type Db } from '../../lib/db/db.ts';
import { createEntry } from '../../lib/entries/entries.ts';
import { fileReport } from '../../lib/moderation/reports.ts';
import { castVote } from '../../lib/entries/votes.ts';
import {
  accountRemovalDone,
  consistencyProblems,
  limitsOff,
  member,
  password,
  startProxiedBoard,
  uidOf,
  type TestBoard,
  emptyFolder,
} from '../helpers.ts';

/**
 * Finding 1 of the abuse review, last part: deleting an account with a deep chain blocked the
 * server for 1.2 s in one transaction. Now the request removes the account and queues the rest;
 * a background job works it off in slices (docs/API.md "POST /api/user/delete").
 */

/** A large account, written straight through the domain functions (fast, and every count kept right). */
function bigAccount(db: Db, uid: number, other: number, now: number): void {
  let parent = 0;
  for (let depth = 0; depth <= 200; depth++)
    parent = createEntry(db, { uid, content: `Kette ${depth}`, filepath: '', replyTo: parent, link: '' }, now)!;
  for (let i = 0; i < 300; i++) {
    const pid = createEntry(db, { uid, content: `Beitrag ${i}`, filepath: '', replyTo: 0, link: '' }, now + i)!;
    castVote(db, pid, other, i % 2 ? 'yes' : 'no', now);
    if (i % 50 === 0)
      createEntry(db, { uid: other, content: `Antwort ${i}`, filepath: '', replyTo: pid, link: '' }, now + i);
    const others = createEntry(db, { uid: other, content: `fremd ${i}`, filepath: '', replyTo: 0, link: '' }, now + i)!;
    castVote(db, others, uid, 'yes', now);
    if (i % 10 === 0) fileReport(db, others, uid, 'gemeldet', now);
  }
}

function pendingCount(db: Db): number {
  return db.value('SELECT count(*) FROM pending_deletions');
}

describe('deleting a large account', () => {
  const dataDir = emptyFolder('board-removal-');
  let board: TestBoard;
  after(async () => {
    await board?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('the 200 comes once the account and its sessions are gone; the rest waits in pending_deletions', async () => {
    board = await startProxiedBoard(limitsOff, { dataDir, accountRemoval: { paused: true } });
    const gross = await member(board, 'Gross');
    await member(board, 'Klein');
    const { db } = board.app.services;
    bigAccount(db, uidOf(board, 'Gross'), uidOf(board, 'Klein'), board.clock.now());
    const uid = uidOf(board, 'Gross');
    const answer = await gross.post('/api/user/delete', { pass1: password });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(db.one('SELECT 1 FROM users WHERE uid = ?', uid), undefined);
    assert.equal(db.value('SELECT count(*) FROM sessions WHERE uid = ?', uid), 0);
    assert.equal((await board.client().post('/api/auth/login', { user: 'Gross', pass: password })).status, 401);
    assert.equal(pendingCount(db), 1);
    assert.ok(db.value('SELECT count(*) FROM entries WHERE uid = ?', uid) > 500, 'the entries wait for the job');
  });

  test('after a restart the job resumes; it works in many slices, other requests are answered in between, and every count is exact at the end', async () => {
    await board.close();
    board = await startProxiedBoard(limitsOff, { dataDir, accountRemoval: { sliceMs: 5 } });
    const { db } = board.app.services;
    let answeredWhilePending = 0;
    for (let tries = 0; pendingCount(db) > 0; tries++) {
      assert.ok(tries < 10_000, 'the removal ends');
      const health = await board.client().get('/api/health');
      assert.equal(health.status, 200);
      if (pendingCount(db) > 0) answeredWhilePending++;
    }
    assert.ok(board.app.jobs!.accountRemoval!.slices > 1, `slices: ${board.app.jobs!.accountRemoval!.slices}`);
    assert.ok(answeredWhilePending > 0, 'requests were answered while the removal went on');
    assert.deepEqual(consistencyProblems(db.raw), []);
    assert.equal(
      db.one<{ n: number }>(
        "SELECT count(*) AS n FROM entries WHERE content LIKE 'Kette %' OR content LIKE 'Beitrag %'",
      )!.n,
      0,
    );
    assert.equal(
      db.value('SELECT count(*) FROM entries WHERE uid = 0 AND deleted = 1'),
      6,
      'tombstones where Klein replied',
    );
    assert.equal(
      db.one<{ n: number }>("SELECT count(*) AS n FROM reports WHERE reason = 'gemeldet' AND reporter_uid = 0")!.n,
      30,
    );
  });
});

describe('two server processes on one database', () => {
  const dataDir = emptyFolder('board-removal-');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('slices of two connections on the same account, interleaved, end exact (a lease that ran out is harmless)', async () => {
    const board = await startProxiedBoard(limitsOff, { dataDir, accountRemoval: { paused: true } });
    const second = openDb(join(dataDir, 'board.db'));
    try {
      const gross = await member(board, 'Gross');
      await member(board, 'Klein');
      const uid = uidOf(board, 'Gross');
      bigAccount(board.app.services.db, uid, uidOf(board, 'Klein'), board.clock.now());
      assert.equal((await gross.post('/api/user/delete', { pass1: password })).status, 200);
      const connections = [board.app.services.db, second];
      let slices = 0;
      for (let done = false; !done; slices++)
        done = removeAccountSlice(connections[slices % 2]!, uid, board.clock.now(), 2).done;
      assert.ok(slices > 2, `slices: ${slices}`);
      assert.equal(pendingCount(second), 0);
      assert.deepEqual(consistencyProblems(second.raw), []);
    } finally {
      await second.close();
      await board.close();
    }
  });

  test('two boards running the job at once finish every queued account exactly once', async () => {
    const one = await startProxiedBoard(limitsOff, {
      dataDir,
      accountRemoval: { paused: true, sliceMs: 2, pollMs: 50 },
    });
    const two = await startProxiedBoard(limitsOff, {
      dataDir,
      accountRemoval: { paused: true, sliceMs: 2, pollMs: 50 },
    });
    try {
      const klein = await member(one, 'Zweiter Klein');
      for (const name of ['Eins', 'Zwei']) {
        const client = await member(one, name);
        bigAccount(one.app.services.db, uidOf(one, name), uidOf(one, 'Zweiter Klein'), one.clock.now());
        assert.equal((await client.post('/api/user/delete', { pass1: password })).status, 200);
      }
      assert.ok(klein);
      one.app.jobs!.accountRemoval!.resume();
      two.app.jobs!.accountRemoval!.resume();
      await accountRemovalDone(one);
      assert.deepEqual(consistencyProblems(one.app.services.db.raw), []);
    } finally {
      await two.close();
      await one.close();
    }
  });
});
