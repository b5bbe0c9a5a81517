import assert from 'node:assert/strict';
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openDb, type Db } from '../../lib/db/db.ts';
import { maxWritesPerCommit } from '../../lib/db/write-batch.ts';
import { emptyFolder } from '../helpers.ts';

/** lib/db/db.ts txBatched (lib/db/write-batch.ts): the writes queued in one turn share one transaction and one commit. */
async function withDb(run: (db: Db, path: string) => Promise<void>): Promise<void> {
  const path = join(emptyFolder('board-batch-'), 'board.db');
  const db = openDb(path);
  try {
    db.run('CREATE TABLE t (who TEXT NOT NULL UNIQUE)');
    await run(db, path);
    assert.equal(db.raw.inTransaction, false);
  } finally {
    await db.close();
  }
}

const insert = (db: Db, who: string) => () => db.run('INSERT INTO t VALUES (?)', who).lastInsertRowid;
const stored = (db: Db) => db.all<{ who: string }>('SELECT who FROM t ORDER BY rowid').map((r) => r.who);

/** Counts the commit checks the fault hook is asked (one per transaction), failing none. */
function countCommits(db: Db): { commits: number } {
  const seen = { commits: 0 };
  db.setFault((sql) => {
    if (sql === 'COMMIT') seen.commits++;
    return undefined;
  });
  return seen;
}

test('two batched writes of one turn share one commit and each gets its own result', () =>
  withDb(async (db) => {
    const seen = countCommits(db);
    const results = await Promise.all([db.txBatched(insert(db, 'a')), db.txBatched(insert(db, 'b'))]);
    assert.deepEqual(results, [1, 2]);
    assert.equal(seen.commits, 1);
    assert.deepEqual(db.batchTally, { writes: 2, commits: 1 });
    assert.deepEqual(stored(db), ['a', 'b']);
  }));

test('a write that throws rejects only its own promise with its own error; the others are stored', () =>
  withDb(async (db) => {
    const results = await Promise.allSettled([
      db.txBatched(insert(db, 'a')),
      db.txBatched(() => {
        db.run("INSERT INTO t VALUES ('rolled back')");
        db.run("INSERT INTO t VALUES ('a')"); // UNIQUE: throws after its first insert
      }),
      db.txBatched(insert(db, 'c')),
    ]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[1].status, 'rejected');
    assert.match(String((results[1] as PromiseRejectedResult).reason), /UNIQUE/);
    assert.equal(results[2].status, 'fulfilled');
    assert.deepEqual(stored(db), ['a', 'c']);
  }));

test('a failed commit rejects every write of the batch with its error and stores nothing', () =>
  withDb(async (db) => {
    db.setFault((sql) => (sql === 'COMMIT' ? new Error('database or disk is full') : undefined));
    const results = await Promise.allSettled([db.txBatched(insert(db, 'a')), db.txBatched(insert(db, 'b'))]);
    db.setFault(undefined);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    for (const r of results) assert.match(String((r as PromiseRejectedResult).reason), /disk is full/);
    assert.deepEqual(stored(db), []);
    assert.equal(await db.txBatched(insert(db, 'after')), 1, 'the next batch works again');
  }));

test('a batched write resolves only after its commit: another connection sees the row by then, not before', () =>
  withDb(async (db, path) => {
    const other = new Database(path, { readonly: true });
    try {
      const count = () => (other.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
      const seenInside = await db.txBatched(() => {
        db.run("INSERT INTO t VALUES ('a')");
        return count();
      });
      assert.equal(seenInside, 0, 'not committed while the batch runs');
      assert.equal(count(), 1, 'committed when the promise resolved');
    } finally {
      other.close();
    }
  }));

test(`more than ${maxWritesPerCommit} queued writes take more than one commit and are all stored`, () =>
  withDb(async (db) => {
    const seen = countCommits(db);
    const total = maxWritesPerCommit + 44;
    await Promise.all(Array.from({ length: total }, (_, i) => db.txBatched(insert(db, `w${i}`))));
    assert.equal(seen.commits, 2);
    assert.equal(stored(db).length, total);
  }));

test('a write that returns a promise is refused with a TypeError, alone', () =>
  withDb(async (db) => {
    const results = await Promise.allSettled([
      db.txBatched(() => {
        db.run("INSERT INTO t VALUES ('async')");
        return Promise.resolve(1);
      }),
      db.txBatched(insert(db, 'b')),
    ]);
    assert.equal(results[0].status, 'rejected');
    assert.ok((results[0] as PromiseRejectedResult).reason instanceof TypeError);
    assert.equal(results[1].status, 'fulfilled');
    assert.deepEqual(stored(db), ['b']);
  }));

test('a write queued inside a batch, or while a transaction is open, runs in a later transaction', () =>
  withDb(async (db) => {
    const seen = countCommits(db);
    let inner: Promise<unknown> | undefined;
    await db.txBatched(() => {
      inner = db.txBatched(insert(db, 'inner'));
      return insert(db, 'outer')();
    });
    await inner;
    assert.equal(seen.commits, 2);

    db.raw.exec('BEGIN');
    let settled = false;
    const queued = db.txBatched(insert(db, 'after the open transaction')).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(settled, false, 'not nested into the open transaction');
    db.raw.exec('COMMIT');
    await queued;
    assert.deepEqual(stored(db), ['outer', 'inner', 'after the open transaction']);
  }));

test("beforeCommit: in a batch it runs after every write, outside their savepoints, in the order asked; a failed write's is dropped", () =>
  withDb(async (db) => {
    const results = await Promise.allSettled([
      db.txBatched(() => {
        db.beforeCommit(() => db.run("INSERT INTO t VALUES ('late a')"));
        return insert(db, 'a')();
      }),
      db.txBatched(() => {
        db.beforeCommit(() => db.run("INSERT INTO t VALUES ('late of the failed write')"));
        insert(db, 'failing')();
        throw new Error('Abbruch');
      }),
      db.txBatched(() => {
        db.beforeCommit(() => {
          assert.equal(
            db.one<{ n: number }>("SELECT count(*) AS n FROM t WHERE who = 'b'")!.n,
            1,
            'after the later write',
          );
          db.run("INSERT INTO t VALUES ('late b')");
        });
        return insert(db, 'b')();
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(stored(db), ['a', 'b', 'late a', 'late b']);
  }));

test('beforeCommit: what a nested transaction asked goes with it when it rolls back, even when the write catches the error', () =>
  withDb(async (db) => {
    await db.txBatched(() => {
      try {
        db.tx(() => {
          insert(db, 'rolled back')();
          db.beforeCommit(() => db.run("INSERT INTO t VALUES ('late of the rolled-back part')"));
          throw new Error('Abbruch');
        });
      } catch {
        // the write goes on without that part
      }
      db.beforeCommit(() => db.run("INSERT INTO t VALUES ('late of the write')"));
      return insert(db, 'kept')();
    });
    assert.deepEqual(stored(db), ['kept', 'late of the write']);
  }));

test('beforeCommit: a throw fails the whole batch and stores nothing; outside a batch it runs at once', () =>
  withDb(async (db) => {
    const results = await Promise.allSettled([
      db.txBatched(insert(db, 'a')),
      db.txBatched(() => {
        db.beforeCommit(() => {
          throw new Error('Index kaputt');
        });
        return insert(db, 'b')();
      }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected'],
    );
    assert.equal((results[0] as PromiseRejectedResult).reason.message, 'Index kaputt');
    assert.deepEqual(stored(db), []);

    let ran = false;
    db.beforeCommit(() => {
      ran = true;
    });
    assert.equal(ran, true, 'no batch: at once');
    db.tx(() => db.beforeCommit(() => insert(db, 'in a plain transaction')()));
    assert.deepEqual(stored(db), ['in a plain transaction']);
  }));

/** Open files of this process that SQLite made for temporary data (named etilqs_…, unlinked at once). */
function sqliteTempFiles(): string[] {
  return readdirSync('/proc/self/fd')
    .flatMap((fd) => {
      try {
        return [readlinkSync(`/proc/self/fd/${fd}`)];
      } catch {
        return []; // closed meanwhile (the directory's own handle)
      }
    })
    .filter((target) => target.includes('etilqs_'));
}

test('the savepoints of a batch keep their journal in memory: no temporary file, however much a write changes (temp_store)', () =>
  withDb(async (db) => {
    const opened: string[][] = [];
    await Promise.all(
      [0, 1].map((batchIndex) =>
        db.txBatched(() => {
          // About 400 KiB of changed pages in one savepoint: far past the 64 KiB a file journal holds in memory.
          for (let i = 0; i < 100; i++) db.run('INSERT INTO t VALUES (?)', `${batchIndex}-${i}-${'x'.repeat(3000)}`);
          db.run('UPDATE t SET who = who || ?', '!');
          opened.push(sqliteTempFiles());
        }),
      ),
    );
    assert.deepEqual(opened, [[], []]);
    assert.equal(stored(db).length, 200);
  }));
