import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { runAdminIn, startServerProcess, type ChildServer } from '../helpers/child-server.ts';
import { consistencyProblems } from '../helpers/consistency.ts';
import { prng, recordSummary, scaled, seed } from './soak.ts';
import { verifyAcked, WriteLoad } from './write-load.ts';
import { emptyFolder } from '../helpers.ts';

const dataDir = emptyFolder('board-backup-');
const backupDir = emptyFolder('board-backup-copies-');
const dbPath = join(dataDir, 'board.db');
let server: ChildServer | undefined;

after(async () => {
  server?.process.kill('SIGKILL');
  await server?.exited;
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(backupDir, { recursive: true, force: true });
});

function readOnly<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const entryCount = (db: Database.Database) =>
  (db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n;
const maxPid = (db: Database.Database) =>
  (db.prepare('SELECT coalesce(max(pid), 0) AS n FROM entries').get() as { n: number }).n;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('board-admin backup copies the live database under write load; restore refuses while the server runs, then puts the copy back', {
  timeout: scaled(120_000, 600_000),
}, async () => {
  server = await startServerProcess(dataDir);
  const load = new WriteLoad(server.url, prng(seed + 1), scaled(4, 8), 'backup');
  await load.start();
  await pause(scaled(1000, 10_000));

  // Backups taken while the writes go on: each holds at least everything acknowledged before it started.
  const backups: { file: string; before: ReturnType<WriteLoad['snapshot']> }[] = [];
  for (let i = 0; i < scaled(2, 5); i++) {
    const file = join(backupDir, `board-${i}.db`);
    const before = load.snapshot();
    const run = await runAdminIn(dataDir, ['backup', file]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /backed up .* \(\d+ pages\); copy .*media with rsync too/);
    backups.push({ file, before });
    await pause(scaled(300, 2000));
  }
  await load.stop();
  assert.deepEqual(load.stats.serverErrors, []);
  assert.deepEqual(load.stats.unexpectedFailures, []);

  let acknowledged = 0;
  let found = 0;
  for (const { file, before } of backups) {
    readOnly(file, (copy) => {
      assert.deepEqual(consistencyProblems(copy), [], `${file} is whole and consistent`);
      const check = verifyAcked(copy, before, undefined, { monotonicOnly: true });
      assert.deepEqual(check.problems, [], file);
      acknowledged += check.checked;
      found += check.found;
    });
  }
  const backup = backups.at(-1)!.file;
  const inBackup = readOnly(backup, (copy) => ({ entries: entryCount(copy), maxPid: maxPid(copy) }));

  // A write after the last backup, so the restore visibly goes back in time.
  const late = await fetch(`${server.url}/api/auth/newuser`, {
    method: 'POST',
    headers: { 'x-forwarded-for': '198.18.9.9' },
    body: new URLSearchParams({ user: 'After Backup', pass1: 'after backup 123', pass2: 'after backup 123' }),
  });
  assert.equal(late.status, 201);

  // restore refuses while a live server holds the folder, and touches nothing.
  const inode = statSync(dbPath).ino;
  const listing = readdirSync(dataDir).sort();
  const refused = await runAdminIn(dataDir, ['restore', backup]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, new RegExp(`a server \\(pid ${server.process.pid}\\) is using`));
  assert.equal(statSync(dbPath).ino, inode, 'the live database file was not replaced');
  assert.deepEqual(readdirSync(dataDir).sort(), listing, 'no file added or removed');

  server.process.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  server = undefined;
  const live = readOnly(dbPath, (db) => ({
    entries: entryCount(db),
    users: (db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n,
  }));
  assert.ok(live.entries >= inBackup.entries);

  // Something that is not a board database is refused too, and changes nothing.
  writeFileSync(join(backupDir, 'not-a-db'), 'hello');
  const bogus = await runAdminIn(dataDir, ['restore', join(backupDir, 'not-a-db')]);
  assert.equal(bogus.code, 1);
  assert.equal(statSync(dbPath).ino, inode);

  const restored = await runAdminIn(dataDir, ['restore', backup]);
  assert.equal(restored.code, 0, restored.stderr);
  const kept = /kept as (\S+)$/m.exec(restored.stdout)?.[1];
  assert.ok(kept && existsSync(kept), `the replaced database is kept: ${restored.stdout}`);
  readOnly(kept, (old) => {
    assert.equal(entryCount(old), live.entries, 'the kept file is the database that was replaced');
    assert.ok(old.prepare("SELECT 1 FROM users WHERE username = 'After Backup'").get());
  });
  readOnly(dbPath, (db) => {
    assert.deepEqual(consistencyProblems(db), []);
    assert.deepEqual({ entries: entryCount(db), maxPid: maxPid(db) }, inBackup);
  });

  // A server started afterwards serves the restored data.
  server = await startServerProcess(dataDir);
  const thread = await fetch(`${server.url}/api/entry/${inBackup.maxPid}/thread`);
  assert.equal(thread.status, 200);
  assert.equal(
    (await fetch(`${server.url}/api/entry/${inBackup.maxPid + 1}/thread`)).status,
    404,
    'nothing newer than the backup',
  );
  assert.equal(
    (await fetch(`${server.url}/api/u/After%20Backup/info`)).status,
    404,
    'the user registered after the backup is gone',
  );
  const again = await fetch(`${server.url}/api/auth/newuser`, {
    method: 'POST',
    headers: { 'x-forwarded-for': '198.18.9.10' },
    body: new URLSearchParams({ user: 'After Restore', pass1: 'after restore 123', pass2: 'after restore 123' }),
  });
  assert.equal(again.status, 201, 'the restored board takes writes');
  server.process.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  server = undefined;

  console.log(
    `backup: ${backups.length} backups under load, ${found}/${acknowledged} writes acknowledged before each backup found in it`,
  );
  recordSummary({
    backupWritesAcknowledged: acknowledged,
    backupWritesFound: found,
    serverErrors: load.stats.serverErrors.length,
  });
});

test('board-admin backup --with-media under write load, restored into a fresh BOARD_DATA and served: every entry and every image answers 200', {
  timeout: scaled(120_000, 600_000),
}, async () => {
  const liveData = emptyFolder('board-backup-media-');
  const freshData = join(emptyFolder('board-restored-'), 'data');
  const archive = join(backupDir, 'board-with-media.tar');
  let restoredServer: ChildServer | undefined;
  try {
    server = await startServerProcess(liveData);
    const load = new WriteLoad(server.url, prng(seed + 2), scaled(4, 8), 'media');
    await load.start();
    await pause(scaled(1500, 10_000));
    const before = load.snapshot();
    const run = await runAdminIn(liveData, ['backup', '--with-media', archive]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^backed up .* and \d+ media files .* to .*board-with-media\.tar/);
    await pause(scaled(300, 2000));
    await load.stop();
    assert.deepEqual(load.stats.serverErrors, []);
    assert.deepEqual(load.stats.unexpectedFailures, []);
    server.process.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    server = undefined;

    const verified = await runAdminIn(freshData, ['verify', archive]);
    assert.equal(verified.code, 0, verified.stderr);
    const restored = await runAdminIn(freshData, ['restore', archive]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.doesNotMatch(restored.stderr, /warning/, 'every media file the database refers to came back');

    // What the restored database holds, and every write acknowledged before the backup is in it.
    const rows = readOnly(join(freshData, 'board.db'), (db) => {
      assert.deepEqual(consistencyProblems(db), []);
      const check = verifyAcked(db, before, undefined, { monotonicOnly: true });
      assert.deepEqual(check.problems, []);
      return {
        pids: (db.prepare('SELECT pid FROM entries ORDER BY pid').all() as { pid: number }[]).map((r) => r.pid),
        media: (
          db
            .prepare(
              "SELECT filepath AS path FROM entries WHERE filepath <> '' UNION SELECT avatar FROM users WHERE avatar <> ''",
            )
            .all() as { path: string }[]
        ).map((r) => r.path),
        acknowledged: check.checked,
        found: check.found,
      };
    });
    assert.ok(
      rows.pids.length > 0 && rows.media.length > 0,
      `entries ${rows.pids.length}, images ${rows.media.length}`,
    );

    restoredServer = await startServerProcess(freshData);
    const failures: string[] = [];
    for (const pid of rows.pids) {
      const status = (await fetch(`${restoredServer.url}/api/entry/${pid}/thread`)).status;
      if (status !== 200) failures.push(`entry ${pid}: ${status}`);
    }
    for (const path of rows.media) {
      const res = await fetch(`${restoredServer.url}/static/media/${path}`);
      await res.arrayBuffer();
      if (res.status !== 200) failures.push(`${path}: ${res.status}`);
    }
    assert.deepEqual(failures, []);
    console.log(
      `backup --with-media: ${rows.pids.length} entries and ${rows.media.length} images served after the restore`,
    );
    recordSummary({
      backupWritesAcknowledged: rows.acknowledged,
      backupWritesFound: rows.found,
      restoredServed: rows.pids.length + rows.media.length,
      serverErrors: load.stats.serverErrors.length,
    });
  } finally {
    restoredServer?.process.kill('SIGTERM');
    await restoredServer?.exited;
    rmSync(liveData, { recursive: true, force: true });
    rmSync(dirname(freshData), { recursive: true, force: true });
  }
});
