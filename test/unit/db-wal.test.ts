import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDb } from '../../lib/db/db.ts';

test('under steady writes the WAL stays bounded although checkpoints run on another thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'board-wal-'));
  const path = join(dir, 'board.db');
  const db = openDb(path, { backgroundCheckpoints: true });
  try {
    db.run('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)');
    const blob = Buffer.alloc(16 * 1024, 7);
    let largest = 0;
    // 96 MiB written in small transactions, without a pause in which a checkpoint could catch up.
    for (let i = 0; i < 6000; i++) {
      db.tx(() => db.run('INSERT INTO blobs (data) VALUES (?)', blob));
      if (i % 200 === 0) largest = Math.max(largest, statSync(`${path}-wal`).size);
    }
    largest = Math.max(largest, statSync(`${path}-wal`).size);
    assert.ok(largest < 64 * 1024 * 1024, `WAL grew to ${(largest / 2 ** 20).toFixed(0)} MiB`);
    assert.equal(db.value('SELECT count(*) FROM blobs'), 6000);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
