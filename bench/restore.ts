import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSftpTarget } from '../test/drill/sftp-target.ts';
import { startServerProcess } from '../test/helpers/child-server.ts';
import { seedBoard } from './seed.ts';

/*
 * `make bench-restore`: the recovery time of docs/OPERATIONS.md "Disaster recovery" on a big board. Seeds
 * BENCH_RESTORE_ENTRIES entries (default 1,000,000; no media), lets Litestream 0.3.13 replicate it
 * to Debian's sshd on 127.0.0.1 as deploy/litestream.yml says (the first snapshot), deletes the
 * data folder, runs deploy/board-replica-restore (Litestream's restore, the media rsync,
 * `board-admin verify --data`), then starts the board on the result and times its first answer.
 * Prints one line per step; the numbers go into bench/results.md by hand.
 */
const entries = Number(process.env.BENCH_RESTORE_ENTRIES ?? 1_000_000);
const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const deploy = (name: string) => join(projectRoot, 'deploy', name);
const litestream =
  process.env.LITESTREAM ?? execFileSync(join(projectRoot, 'bin', 'fetch-litestream'), { encoding: 'utf8' }).trim();
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);
const mebibytes = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

function folderBytes(folder: string): number {
  let total = 0;
  for (const name of readdirSync(folder, { recursive: true }) as string[]) {
    const stat = statSync(join(folder, name));
    if (stat.isFile()) total += stat.size;
  }
  return total;
}

function run(command: string, args: string[], env: Record<string, string>, until?: RegExp) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let seen: () => void = () => {};
  const matched = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const keep = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (until?.test(output)) seen();
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, matched, exited, output: () => output };
}

const home = mkdtempSync(join(tmpdir(), 'board-bench-restore-'));
const data = join(home, 'data');
mkdirSync(data);
const target = await startSftpTarget();
try {
  let started = performance.now();
  await seedBoard(join(data, 'board.db'), { entries });
  const seeded = new Database(join(data, 'board.db'));
  seeded.pragma('journal_mode = WAL');
  seeded.close();
  const dbBytes = statSync(join(data, 'board.db')).size;
  console.log(`seeded ${entries} entries in ${seconds(started)} s: board.db ${mebibytes(dbBytes)} MiB`);

  const config = join(home, 'litestream.yml');
  writeFileSync(config, readFileSync(deploy('litestream.yml'), 'utf8').replace(/^addr: .*$/m, 'addr: "127.0.0.1:0"'));
  const env = { ...target.env, BOARD_DATA: data };
  started = performance.now();
  const replication = run(litestream, ['replicate', '-config', config], env, /snapshot written/);
  await Promise.race([replication.matched, replication.exited]);
  replication.child.kill('SIGTERM');
  await replication.exited;
  const replicaBytes = folderBytes(join(target.folder, 'db'));
  console.log(`first snapshot on the replica in ${seconds(started)} s: ${mebibytes(replicaBytes)} MiB (lz4)`);

  // The media sync's copy (a seeded board has no media: an empty folder, as a new board has).
  mkdirSync(join(data, 'media'));
  const media = run(deploy('board-media-sync'), [], env);
  if ((await media.exited) !== 0) throw new Error(`board-media-sync failed:\n${media.output()}`);

  rmSync(data, { recursive: true, force: true });
  started = performance.now();
  const restore = run(deploy('board-replica-restore'), [], {
    ...env,
    LITESTREAM: litestream,
    LITESTREAM_CONFIG: config,
    BOARD_ADMIN: join(projectRoot, 'bin', 'board-admin'),
  });
  const code = await restore.exited;
  const restoreSeconds = seconds(started);
  // The seed names preview thumbnails it never wrote: verify reports exactly those, nothing else.
  const seedsMissingThumbnails = /verify: problem: .*media files missing .*integrity ok/.test(restore.output());
  if (code !== 0 && !seedsMissingThumbnails) throw new Error(`the restore failed (${code}):\n${restore.output()}`);
  console.log(`board-replica-restore (Litestream restore, rsync, verify --data) took ${restoreSeconds} s`);
  console.log(restore.output().trim().split('\n').at(-1));

  started = performance.now();
  const board = await startServerProcess(data);
  const answer = await fetch(`${board.url}/api/entry/feed/0`);
  console.log(`the board answered its first feed page (${answer.status}) ${seconds(started)} s after its start`);
  board.process.kill('SIGTERM');
  await board.exited;
} finally {
  await target.stop();
  rmSync(home, { recursive: true, force: true });
}
