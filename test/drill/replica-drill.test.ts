import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { emptyFolder, imageFixture, password } from '../helpers.ts';
import { startServerProcess, type ChildServer } from '../helpers/child-server.ts';
import { missingTools, startSftpTarget, stopChild, type SftpTarget } from './sftp-target.ts';

/*
 * The disaster-recovery drill (issue 33; docs/OPERATIONS.md "Disaster recovery"): the board under
 * a create load with Litestream and the media sync running as deploy/ configures them, an SFTP
 * target of Debian's sshd; then the machine "dies": the board, Litestream and the media sync are
 * killed with SIGKILL at once and the data folder is deleted. deploy/board-replica-restore brings
 * it back as the docs say; the test checks that the database is whole, that every create
 * acknowledged more than `recoveryPointSeconds` before the kill is there with its image, that
 * `board-admin verify --data` agrees with what is on disk, and that the board starts on it.
 * DRILL_KILLS=<n> repeats it (make drill runs 5); each run reports what it lost and how long the
 * restore took.
 */
const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
const deploy = (name: string) => join(projectRoot, 'deploy', name);
/** The recovery point docs/OPERATIONS.md "Disaster recovery" promises: writes acknowledged longer ago than this are in the replica. */
const recoveryPointSeconds = 5;
const kills = Number(process.env.DRILL_KILLS ?? 1);
const loadSeconds = Number(process.env.DRILL_LOAD_SECONDS ?? 6);
/** Clients creating at once (DRILL_CLIENTS; make bench's create load runs 50 connections). */
const clients = Number(process.env.DRILL_CLIENTS ?? 4);

/** The binary `make drill` hands over (bin/fetch-litestream), or undefined when run otherwise. */
function litestreamBinary(): string | undefined {
  const path = process.env.LITESTREAM;
  return path && existsSync(path) ? path : undefined;
}
const litestream = litestreamBinary();
const skip = missingTools(litestream) ?? false;

interface Ack {
  pid: number;
  filepath: string;
  /** Date.now() when the answer arrived. */
  at: number;
}

/** A child process started in its own process group, so that SIGKILL takes its children (rsync, ssh) too. */
function startGroup(command: string, args: string[], env: Record<string, string>, log: string[]) {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, kill: () => killGroup(child) };
}

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Registers and logs in one writer; returns its session cookie. */
async function writer(url: string, name: string): Promise<string> {
  const post = (path: string, fields: Record<string, string>) =>
    fetch(url + path, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'x-forwarded-for': '198.18.0.1' },
    });
  assert.equal((await post('/api/auth/newuser', { user: name, pass1: password, pass2: password })).status, 201);
  const login = await post('/api/auth/login', { user: name, pass: password, timeout: '86400' });
  assert.equal(login.status, 200);
  return login.headers
    .getSetCookie()
    .find((c) => c.startsWith('session='))!
    .split(';')[0]!;
}

/** Creates entries from `clients` loops until stopped (every fourth with an image); records each acknowledged one. */
function createLoad(url: string, cookie: string, image: Buffer, clients: number) {
  const acks: Ack[] = [];
  let stopped = false;
  let n = 0;
  const loop = async (client: number) => {
    while (!stopped) {
      const body = new FormData();
      const i = n++;
      body.append('content', `Drill ${i} von Schreiber ${client}`);
      if (i % 4 === 0) body.append('file', new Blob([image], { type: 'image/jpeg' }), 'foto.jpg');
      try {
        const res = await fetch(`${url}/api/entry/create`, {
          method: 'POST',
          body,
          headers: { cookie, 'x-forwarded-for': `198.18.1.${client}` },
        });
        const answer = (await res.json()) as { pid: number; filepath: string };
        if (res.status === 201) acks.push({ pid: answer.pid, filepath: answer.filepath, at: Date.now() });
      } catch {
        return; // the board was killed
      }
    }
  };
  const running = Array.from({ length: clients }, (_, c) => loop(c));
  return {
    acks,
    stop: async () => {
      stopped = true;
      await Promise.allSettled(running);
    },
  };
}

function run(command: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; output: string; seconds: number }>((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    child.on('close', (code) => resolve({ code, output, seconds: (performance.now() - started) / 1000 }));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

let target: SftpTarget;
/** The first round's replica and settings, for the cut-short test below. */
let firstRound:
  | { env: Record<string, string>; restoreEnv: Record<string, string>; data: string; entries: number }
  | undefined;
const results: {
  lostSeconds: number;
  imagesLostSeconds: number;
  lostWrites: number;
  acked: number;
  restoreSeconds: number;
}[] = [];

before(async () => {
  if (!skip) target = await startSftpTarget();
});
after(async () => {
  await target?.stop();
  if (results.length) {
    const lost = results.map((r) => r.lostSeconds);
    console.log(
      `drill: ${results.length} kills; acknowledged writes lost: median ${median(lost).toFixed(2)} s, worst ${Math.max(...lost).toFixed(2)} s` +
        ` (${results.map((r) => `${r.lostWrites}/${r.acked}`).join(', ')} writes); images of restored rows lost: worst ${Math.max(...results.map((r) => r.imagesLostSeconds)).toFixed(2)} s;` +
        ` restore took median ${median(results.map((r) => r.restoreSeconds)).toFixed(2)} s`,
    );
  }
});

for (let round = 1; round <= kills; round++) {
  test(`drill ${round}/${kills}: after a SIGKILL and a lost data folder, the replica brings back every create older than ${recoveryPointSeconds} s, with its image`, {
    skip,
    timeout: 180_000,
  }, async (t) => {
    const home = emptyFolder('board-drill-');
    const data = join(home, 'data');
    const replicaPath = join(target.folder, `round-${round}`);
    // deploy/litestream.yml as installed, with its metrics on a port of this run.
    const config = join(home, 'litestream.yml');
    writeFileSync(config, readFileSync(deploy('litestream.yml'), 'utf8').replace(/^addr: .*$/m, 'addr: "127.0.0.1:0"'));
    const env = { ...target.env, REPLICA_PATH: replicaPath, BOARD_DATA: data };
    await run('mkdir', ['-p', replicaPath], {});

    const logs: string[] = [];
    const board: ChildServer = await startServerProcess(data, { BOARD_LITESTREAM: '1' });
    const replication = startGroup(litestream!, ['replicate', '-config', config], env, logs);
    const media = startGroup(deploy('board-media-sync'), ['--watch'], env, logs);
    let killedAt = 0;
    try {
      const cookie = await writer(board.url, `drill ${round}`);
      const load = createLoad(board.url, cookie, await imageFixture({ width: 200, height: 150 }), clients);
      await new Promise((resolve) => setTimeout(resolve, loadSeconds * 1000));
      // The machine dies: everything on it at once.
      killedAt = Date.now();
      board.process.kill('SIGKILL');
      replication.kill();
      media.kill();
      await Promise.all([board.exited, replication.exited, media.exited, load.stop()]);
      assert.ok(load.acks.length > 20, `the load ran (${load.acks.length} creates acknowledged)`);
      rmSync(data, { recursive: true, force: true });

      const restoreEnv = {
        ...env,
        LITESTREAM: litestream!,
        LITESTREAM_CONFIG: config,
        BOARD_ADMIN: join(projectRoot, 'bin', 'board-admin'),
      };
      // The documented commands: the restore, and once more with --set-aside-cut-short when it says
      // the loss cut the newest change file short (docs/OPERATIONS.md "Disaster recovery").
      let restore = await run(deploy('board-replica-restore'), [], restoreEnv);
      if (restore.code !== 0 && restore.output.includes('--set-aside-cut-short')) {
        const again = await run(deploy('board-replica-restore'), ['--set-aside-cut-short'], restoreEnv);
        restore = { ...again, seconds: restore.seconds + again.seconds, output: restore.output + again.output };
      }
      t.diagnostic(`restore took ${restore.seconds.toFixed(2)} s`);
      assert.ok(
        existsSync(join(data, 'board.db')),
        `the restore wrote board.db:\n${restore.output}\n${logs.join('\n')}`,
      );

      const db = new Database(join(data, 'board.db'), { readonly: true });
      let present: Set<number>;
      try {
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        present = new Set((db.prepare('SELECT pid FROM entries').all() as { pid: number }[]).map((r) => r.pid));
      } finally {
        db.close();
      }
      const lost = load.acks.filter((a) => !present.has(a.pid));
      const old = (a: Ack) => killedAt - a.at > recoveryPointSeconds * 1000;
      assert.deepEqual(lost.filter(old), [], 'every create acknowledged before the recovery point is in the replica');
      const missingImages = load.acks.filter(
        (a) => present.has(a.pid) && a.filepath && !existsSync(join(data, 'media', a.filepath)),
      );
      assert.deepEqual(missingImages.filter(old), [], 'and so is its image');
      for (const a of load.acks.filter((a) => a.filepath && old(a)))
        assert.ok(statSync(join(data, 'media', a.filepath)).size > 0);

      // verify --data says ok exactly when every image the restored rows name is there.
      const ok = missingImages.length === 0;
      assert.equal(restore.code, ok ? 0 : 1, restore.output);
      assert.match(
        restore.output,
        ok
          ? /^ok: .*data folder, schema \d+ .*integrity ok/m
          : /^board-admin: verify: problem: .* media files missing/m,
      );

      const age = (acks: Ack[]) => (acks.length ? (killedAt - Math.min(...acks.map((a) => a.at))) / 1000 : 0);
      const lostSeconds = age(lost);
      const imagesLostSeconds = age(missingImages);
      results.push({
        lostSeconds,
        imagesLostSeconds,
        lostWrites: lost.length,
        acked: load.acks.length,
        restoreSeconds: restore.seconds,
      });
      t.diagnostic(
        `${load.acks.length} creates acknowledged, ${lost.length} lost (the oldest ${lostSeconds.toFixed(2)} s before the kill); ${missingImages.length} images of restored rows missing (the oldest ${imagesLostSeconds.toFixed(2)} s)`,
      );

      if (round === 1) firstRound = { env, restoreEnv, data, entries: present.size };

      // The board starts on the restored folder and shows the newest restored entry.
      const restored = await startServerProcess(data, { BOARD_LITESTREAM: '1' });
      try {
        const newest = Math.max(...present);
        const res = await fetch(`${restored.url}/api/entry/${newest}/thread`);
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as { entry: { pid: number } }).entry.pid, newest);
      } finally {
        restored.process.kill('SIGTERM');
        await restored.exited;
      }
    } finally {
      if (!killedAt) {
        board.process.kill('SIGKILL');
        replication.kill();
        media.kill();
      }
      await stopChild(board.process, board.exited);
    }
  });
}

test('a change file cut short by the loss (Litestream 0.3 uploads them in place over SFTP) is set aside, and the rest restored', {
  skip,
  timeout: 60_000,
}, async () => {
  assert.ok(firstRound, 'the first drill ran');
  const { restoreEnv, data, entries } = firstRound;
  // The newest change file of the newest generation loses its second half, as a cut upload would.
  const generations = join(restoreEnv.REPLICA_PATH!, 'db', 'generations');
  const wal = readdirSync(generations)
    .map((g) => join(generations, g, 'wal'))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]!;
  const newest = readdirSync(wal)
    .filter((f) => f.endsWith('.wal.lz4'))
    .sort()
    .at(-1)!;
  const file = join(wal, newest);
  truncateSync(file, Math.floor(statSync(file).size / 2));
  rmSync(data, { recursive: true, force: true });

  // Without the option it stops, names the file and touches nothing: a live Litestream may still be writing it.
  const refused = await run(deploy('board-replica-restore'), [], restoreEnv);
  assert.equal(refused.code, 1, refused.output);
  assert.match(refused.output, new RegExp(`the restore stops at .*${newest}, .*run again with --set-aside-cut-short`));
  assert.ok(existsSync(file));

  const restore = await run(deploy('board-replica-restore'), ['--set-aside-cut-short'], restoreEnv);
  assert.match(
    restore.output,
    new RegExp(`${newest} was cut short by the loss; setting it aside as ${newest}\\.cut-short`),
  );
  assert.ok(existsSync(`${file}.cut-short`) && !existsSync(file));
  const db = new Database(join(data, 'board.db'), { readonly: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    const n = (db.prepare('SELECT count(*) AS n FROM entries').get() as { n: number }).n;
    assert.ok(n > 0 && n <= entries, `${n} entries restored, at most the ${entries} of the whole replica`);
  } finally {
    db.close();
  }
});
