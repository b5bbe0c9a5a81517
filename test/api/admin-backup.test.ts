import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emptyFolder, post, runAdmin, startBoard, useBoard, type TestBoard } from '../helpers.ts';
import { childEnv } from '../helpers/child-env.ts';
import { hangBoundMs } from '../helpers/hang-bound.ts';

/** board-admin backup as a nightly cron job meets it: one clean file, nothing left behind, never a silent overwrite. */

const scratch = (name: string) =>
  name.endsWith('.board-admin-tmp') || /\.board-admin-tmp-(journal|wal|shm)$/.test(name);

describe('backup <file>', () => {
  const t = useBoard({ members: ['Anna'] });

  test('writes one self-contained file: no WAL, opening it creates no side file, owner-only, nothing else in the folder', async () => {
    await post(t.members.Anna, 'vor dem Backup');
    const folder = emptyFolder();
    const run = await runAdmin(t.board, ['backup', join(folder, 'board.db')]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, `board-admin: database ${t.board.config.dbPath}\n`);
    assert.match(
      run.stdout,
      /^backed up .* to .*board\.db \(\d+ pages\); copy .*media with rsync too, or use --with-media\n$/,
    );
    assert.deepEqual(readdirSync(folder), ['board.db']);
    assert.equal(statSync(join(folder, 'board.db')).mode & 0o777, 0o600, 'a backup holds password hashes');
    const copy = new Database(join(folder, 'board.db'), { fileMustExist: true });
    try {
      assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete');
      assert.equal(
        (copy.prepare("SELECT count(*) AS n FROM entries WHERE content = 'vor dem Backup'").get() as { n: number }).n,
        1,
      );
    } finally {
      copy.close();
    }
    assert.deepEqual(readdirSync(folder), ['board.db'], 'opening and closing the copy left no -wal or -shm file');
  });

  test('an existing file is refused without --force (left as it was) and replaced with it', async () => {
    const folder = emptyFolder();
    const file = join(folder, 'nightly.db');
    writeFileSync(file, 'yesterday');
    const refused = await runAdmin(t.board, ['backup', file, '-q']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, `board-admin: backup: ${file} already exists; add --force to replace it\n`);
    assert.deepEqual(readdirSync(folder), ['nightly.db']);
    assert.equal(statSync(file).size, 'yesterday'.length);
    const forced = await runAdmin(t.board, ['backup', '--force', file, '-q']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(readdirSync(folder), ['nightly.db']);
    assert.ok(statSync(file).size > 'yesterday'.length);
  });

  test('a missing folder, a folder as target and an unwritable folder: one line each, exit 1, nothing written', async () => {
    const folder = emptyFolder();
    const cases: [string, string][] = [
      [join(folder, 'nope', 'b.db'), `folder ${join(folder, 'nope')} does not exist`],
      [folder, `${folder} is a folder`],
    ];
    // Root may write almost anywhere; /sys refuses even root.
    if (process.getuid?.() === 0 && existsSync('/sys/kernel'))
      cases.push(['/sys/board-backup.db', 'cannot write in /sys (EACCES)']);
    for (const [target, line] of cases) {
      const run = await runAdmin(t.board, ['backup', target, '-q']);
      assert.equal(run.code, 1, target);
      assert.equal(run.stderr, `board-admin: backup: ${line}\n`);
    }
    assert.deepEqual(readdirSync(folder), []);
  });
});

describe('a backup that is interrupted', () => {
  let board: TestBoard;
  const data = emptyFolder();
  const admin = fileURLToPath(new URL('../../bin/board-admin', import.meta.url));

  // A stopped board whose database takes a while to copy (64 MiB), so a run can be caught midway.
  before(async () => {
    board = await startBoard({}, { dataDir: data });
    await board.close();
    const db = new Database(board.config.dbPath);
    db.exec('CREATE TABLE filler (data BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(1048576))');
    db.transaction(() => {
      for (let i = 0; i < 64; i++) insert.run();
    })();
    db.close();
  });

  /** Starts a backup into `folder` and sends `signal` as soon as its temporary file shows. */
  async function interrupt(
    folder: string,
    signal: NodeJS.Signals,
    target = 'board.db',
    options: string[] = [],
  ): Promise<{ code: number | null; signal: string | null; seen: string[] }> {
    const child = spawn(admin, ['backup', ...options, join(folder, target), '-q'], {
      env: childEnv({ BOARD_DATA: data }),
      stdio: 'ignore',
    });
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.on('exit', (code, sig) => resolve({ code, signal: sig })),
    );
    let seen: string[] = [];
    let done = false;
    void exited.then(() => {
      done = true;
    });
    while (!done) {
      seen = readdirSync(folder).filter(scratch);
      if (seen.length) {
        child.kill(signal);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { ...(await exited), seen };
  }

  test('killed with SIGKILL midway it leaves only its temporary file, which the next run removes', {
    timeout: hangBoundMs,
  }, async () => {
    const folder = emptyFolder();
    const killed = await interrupt(folder, 'SIGKILL');
    assert.ok(killed.seen.length > 0, 'the run was caught while writing');
    assert.equal(killed.signal, 'SIGKILL');
    const left = readdirSync(folder);
    assert.ok(left.length > 0 && left.every(scratch), `only temporary files remain: ${left.join(', ')}`);

    const next = await runAdmin(board, ['backup', join(folder, 'board.db')]);
    assert.equal(next.code, 0, next.stderr);
    assert.match(
      next.stderr,
      new RegExp(`removed ${left.length} temporary files of an earlier, interrupted run from ${folder}`),
    );
    assert.deepEqual(readdirSync(folder), ['board.db']);
  });

  test('the same for backup --with-media: after a SIGKILL only temporary files remain, and the next run removes them', {
    timeout: hangBoundMs,
  }, async () => {
    const folder = emptyFolder();
    const killed = await interrupt(folder, 'SIGKILL', 'board.tar', ['--with-media']);
    assert.ok(killed.seen.length > 0, 'the run was caught while writing');
    const left = readdirSync(folder);
    assert.ok(left.length > 0 && left.every(scratch), `only temporary files remain: ${left.join(', ')}`);
    const next = await runAdmin(board, ['backup', '--with-media', join(folder, 'board.tar')]);
    assert.equal(next.code, 0, next.stderr);
    assert.match(next.stderr, /removed \d+ temporary files of an earlier, interrupted run/);
    assert.deepEqual(readdirSync(folder), ['board.tar']);
  });

  test('stopped with SIGTERM or SIGINT midway it removes its temporary file itself', {
    timeout: hangBoundMs,
  }, async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const folder = emptyFolder();
      const stopped = await interrupt(folder, signal);
      assert.ok(stopped.seen.length > 0, 'the run was caught while writing');
      assert.deepEqual(readdirSync(folder).filter(scratch), [], `${signal}: no temporary file left`);
    }
  });

  test('backup --with-media stopped with SIGTERM or SIGINT midway removes its media hold too', {
    timeout: hangBoundMs,
  }, async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const folder = emptyFolder();
      const stopped = await interrupt(folder, signal, 'board.tar', ['--with-media']);
      assert.ok(stopped.seen.length > 0, 'the run was caught while writing');
      assert.deepEqual(readdirSync(folder).filter(scratch), [], `${signal}: no temporary file left`);
      assert.deepEqual(readdirSync(join(board.config.mediaDir, '.hold')), [], `${signal}: no hold left`);
    }
  });
});
