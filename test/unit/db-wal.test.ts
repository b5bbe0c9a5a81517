import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDb, type OpenOptions } from '../../lib/db/db.ts';
import { emptyFolder, eventually } from '../helpers.ts';

/*
 * Who checkpoints the WAL (lib/db/db.ts). Each test decides who may: the writing connection's
 * valve alone, the checkpoint thread alone, or nobody but Litestream. None depends on how fast
 * the machine is: the first holds the WAL back with a read transaction it opens and closes itself
 * (the earlier version raced the real thread and failed on a loaded machine, when one of its
 * checkpoints outlasted 32 MiB of writes), the second waits for the thread, the third counts pages.
 */
const mebibyte = 1024 * 1024;
const blob = Buffer.alloc(16 * 1024, 7);

function openBoardDb(options: OpenOptions) {
  const path = join(emptyFolder('board-wal-'), 'board.db');
  const db = openDb(path, options);
  db.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
  return { db, path, size: (suffix = '') => statSync(`${path}${suffix}`, { throwIfNoEntry: false })?.size ?? 0 };
}

/** Writes `mebibytes` of blobs in small transactions; returns the largest WAL seen. */
function writeBlobs(board: ReturnType<typeof openBoardDb>, mebibytes: number): number {
  let largest = 0;
  for (let i = 0; i < (mebibytes * mebibyte) / blob.length; i++) {
    board.db.tx(() => board.db.run('INSERT INTO blobs (data) VALUES (?)', blob));
    if (i % 50 === 0) largest = Math.max(largest, board.size('-wal'));
  }
  return Math.max(largest, board.size('-wal'));
}

test('past 32 MiB of WAL a commit finishes the checkpoint itself once nothing holds it back, so the WAL stays bounded', async () => {
  const board = openBoardDb({ walLimits: true });
  // The gate: a read transaction of the test's own, standing in for a checkpointer that has fallen
  // behind (the thread in a long checkpoint, Litestream's read lock). While it is open no
  // checkpoint may rewind the WAL, whatever the machine's speed.
  const reader = new Database(board.path);
  try {
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM blobs').get();
    const held = writeBlobs(board, 40);
    assert.ok(held >= 40 * mebibyte, `while held, the WAL keeps every frame (${(held / mebibyte).toFixed(0)} MiB)`);
    reader.prepare('COMMIT').run();
    // Released: the next commit past the valve copies the WAL and the one after rewinds it, so
    // 96 MiB more land in the database file without the WAL growing past what it already was.
    const largest = writeBlobs(board, 96);
    assert.ok(
      largest <= held + mebibyte,
      `WAL grew from ${(held / mebibyte).toFixed(0)} to ${(largest / mebibyte).toFixed(0)} MiB`,
    );
    assert.ok(board.size() > 96 * mebibyte, 'the rows reached the database file');
    assert.equal(board.db.value<number>('SELECT count(*) FROM blobs'), 136 * 64);
  } finally {
    reader.close();
    await board.db.close();
  }
});

test('the checkpoint thread copies the WAL into the database without any commit doing it', async () => {
  const board = openBoardDb({ backgroundCheckpoints: true });
  try {
    board.db.raw.pragma('wal_autocheckpoint = 0'); // only the thread may checkpoint here
    const before = board.size();
    writeBlobs(board, 4);
    await eventually('the thread checkpointed 4 MiB', () => board.size() >= before + 4 * mebibyte, 20_000);
  } finally {
    await board.db.close();
  }
});

test('with BOARD_LITESTREAM the board never checkpoints: past the valve every frame stays in the WAL for Litestream', async () => {
  const board = openBoardDb({ backgroundCheckpoints: true, walLimits: true, litestream: true });
  try {
    assert.equal(board.db.raw.pragma('wal_autocheckpoint', { simple: true }), 0);
    const before = board.size();
    const largest = writeBlobs(board, 40); // past the 32 MiB at which the valve would checkpoint
    assert.ok(largest >= 40 * mebibyte, `the WAL holds all 40 MiB (${(largest / mebibyte).toFixed(0)} MiB)`);
    assert.equal(board.size(), before, 'not one page reached the database file');
  } finally {
    await board.db.close();
  }
});
