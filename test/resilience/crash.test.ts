import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runAdminIn, startServerProcess, type ChildServer } from '../helpers/child-server.ts';
import { consistencyProblems } from '../helpers/consistency.ts';
import { prng, randomTools, recordSummary, scaled, seed } from './soak.ts';
import { verifyAcked, WriteLoad } from './write-load.ts';
import { emptyFolder } from '../helpers.ts';

const kills = scaled(3, 20);
const writers = scaled(6, 8);
const dataDir = emptyFolder('board-crash-');
const dbPath = join(dataDir, 'board.db');
const mediaDir = join(dataDir, 'media');
let server: ChildServer | undefined;

after(async () => {
  server?.process.kill('SIGKILL');
  await server?.exited;
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens the database the way an operator would after a crash (SQLite replays the WAL). */
function withDatabase<T>(fn: (db: Database.Database) => T): T {
  const db = new Database(dbPath);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

/** Media files on disk, as paths relative to media/. */
function mediaOnDisk(): string[] {
  return ['e', 'a'].flatMap((folder) =>
    existsSync(join(mediaDir, folder)) ? readdirSync(join(mediaDir, folder)).map((name) => `${folder}/${name}`) : [],
  );
}

test(`SIGKILL at ${kills} random moments under a write load loses no acknowledged write and leaves nothing half-written`, {
  timeout: scaled(120_000, 1_200_000),
}, async () => {
  const rnd = randomTools(prng(seed));
  server = await startServerProcess(dataDir);
  const load = new WriteLoad(server.url, rnd.random, writers, 'crash');
  await load.start();

  for (let kill = 1; kill <= kills; kill++) {
    await new Promise((resolve) => setTimeout(resolve, scaled(rnd.int(300, 1500), rnd.int(500, 4000))));
    const victim: ChildServer = server;
    load.serverDown();
    victim.process.kill('SIGKILL');
    assert.equal(await victim.exited, 'SIGKILL');
    // A killed server cannot remove its pid file; the next start must see that the pid is dead.
    assert.equal(
      readFileSync(join(dataDir, 'server.pid'), 'utf8').trim(),
      String(victim.process.pid),
      'the dead server left its pid file',
    );
    await load.settled();

    withDatabase((db) => {
      assert.deepEqual(consistencyProblems(db), [], `after kill ${kill}`);
      const check = verifyAcked(db, load.acked, mediaDir);
      assert.deepEqual(check.problems, [], `after kill ${kill}`);
    });

    server = await startServerProcess(dataDir);
    assert.equal(
      readFileSync(join(dataDir, 'server.pid'), 'utf8').trim(),
      String(server.process.pid),
      'the new server claimed the folder',
    );
    load.serverUp(server.url);
  }

  // The last stop is a SIGTERM in the middle of the load: requests in flight are answered, and
  // whatever was answered is kept like everything else.
  await new Promise((resolve) => setTimeout(resolve, 500));
  load.serverDown();
  server.process.kill('SIGTERM');
  assert.equal(await server.exited, 0, 'SIGTERM under load stops the server cleanly');
  await load.stop();
  assert.equal(existsSync(join(dataDir, 'server.pid')), false, 'a clean stop removes the pid file');
  server = undefined;

  assert.deepEqual(load.stats.serverErrors, [], 'no 500 while the load ran');
  assert.deepEqual(load.stats.unexpectedFailures, [], 'no request failed while the server was up');
  const final = withDatabase((db) => {
    assert.deepEqual(consistencyProblems(db), [], 'at the end');
    const check = verifyAcked(db, load.acked, mediaDir);
    assert.deepEqual(check.problems, [], 'at the end');
    const referenced = new Set(
      (
        db
          .prepare(
            "SELECT filepath AS path FROM entries WHERE filepath <> '' UNION SELECT avatar FROM users WHERE avatar <> ''",
          )
          .all() as { path: string }[]
      ).map((r) => r.path),
    );
    return { check, referenced, entries: (db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n };
  });
  assert.ok(load.acked.entries.size > 20, `the load wrote entries (${load.acked.entries.size})`);
  assert.ok(final.check.checked > 0 && final.check.found === final.check.checked);

  // Media: every referenced file exists; the only unreferenced ones are those a killed request was writing or deleting.
  const files = mediaOnDisk();
  for (const path of final.referenced) assert.ok(files.includes(path), `referenced file ${path} exists`);
  const orphans = files.filter((path) => !final.referenced.has(path));
  assert.ok(
    orphans.length <= load.stats.mediaAtRisk,
    `${orphans.length} orphaned files, but only ${load.stats.mediaAtRisk} image requests were cut off`,
  );

  // gc-media keeps files younger than an hour; age them all, then it must take exactly the orphans.
  // One more planted orphan (as a kill between writing a file and committing its row leaves),
  // and a young one that a request could still be writing: gc-media must keep that one.
  // (On a slow machine the kills may all come before the first image was stored: the folder may not exist yet.)
  mkdirSync(join(mediaDir, 'e'), { recursive: true });
  writeFileSync(join(mediaDir, 'e', 'planted-orphan.jpg'), 'x');
  const old = new Date(Date.now() - 2 * 3600_000);
  for (const path of [...files, 'e/planted-orphan.jpg']) utimesSync(join(mediaDir, path), old, old);
  writeFileSync(join(mediaDir, 'e', 'young-orphan.jpg'), 'x');
  const gc = await runAdminIn(dataDir, ['gc-media']);
  assert.equal(gc.code, 0, gc.stderr);
  const removed = gc.stdout
    .split('\n')
    .filter((line) => line.startsWith('removed ') && !line.includes('unreferenced'))
    .map((line) => line.slice('removed '.length));
  assert.deepEqual(removed.sort(), [...orphans, 'e/planted-orphan.jpg'].sort());
  assert.deepEqual(
    mediaOnDisk().sort(),
    [...final.referenced, 'e/young-orphan.jpg'].sort(),
    'gc-media left every referenced file and the young one',
  );

  console.log(
    `crash: seed ${seed}, ${kills} kills, ${final.entries} entries, ${final.check.found}/${final.check.checked} acknowledged writes found, ` +
      `${load.stats.cutOff} requests cut off, ${orphans.length} orphaned files collected`,
  );
  recordSummary({
    writesAcknowledged: final.check.checked,
    writesFound: final.check.found,
    kills,
    serverErrors: load.stats.serverErrors.length,
  });
});
