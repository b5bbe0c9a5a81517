import assert from 'node:assert/strict';
import { existsSync, readFileSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { processAlive } from '../../lib/host/pid-file.ts';
import { startServerProcess } from '../helpers/child-server.ts';
import { childPids } from '../helpers/processes.ts';
import { listeningSocketsOn, startCluster, waitForLine, type ClusterBoard } from '../helpers/cluster-board.ts';

describe('BOARD_WORKERS=2: a primary and two workers on one port', () => {
  let board: ClusterBoard;
  before(async () => {
    board = await startCluster();
  });
  after(() => board.close());

  test('both workers answer on the one port, the pid file names the primary, /api/health keeps its answer', async () => {
    const pid = Number(readFileSync(join(board.dataDir, 'server.pid'), 'utf8'));
    assert.equal(pid, board.child.process.pid);
    assert.equal(childPids(pid).length, 2);
    const [one, two] = [await board.clientOn('1'), await board.clientOn('2')];
    for (const client of [one, two]) assert.deepEqual((await client.get('/api/health')).body, { status: 'ok' });
    const series = await board.scrape();
    assert.equal(series.get('board_workers'), 2);
    assert.ok(series.has('board_machine_slots_peak{pool="hash"}'));
    assert.equal(
      [...series.keys()].filter((name) => name.startsWith('board_database_size_bytes')).length,
      1,
      'the database figures come from the primary, once',
    );
  });

  test('each worker listens on the port with a socket of its own (reusePort); the primary holds none', () => {
    const primary = board.child.process.pid!;
    const port = Number(new URL(board.url).port);
    const held = listeningSocketsOn(port, [primary, ...childPids(primary)]);
    assert.deepEqual(
      [...held.values()],
      [0, 1, 1],
      `listening sockets on ${port} by process: ${JSON.stringify([...held])}`,
    );
  });

  test('a second board on the same port fails with one line instead of sharing the port', async () => {
    const port = new URL(board.url).port;
    const failed = await startCluster({ PORT: port }).then(
      async (second) => {
        await second.close();
        return undefined;
      },
      (err: Error) => err,
    );
    assert.match(String(failed?.message), /exited \(1\) before listening/);
    assert.match(String(failed?.message), new RegExp(`board: PORT: ${port} on 127.0.0.1 is already in use`));
    assert.deepEqual(
      (await (await board.clientOn('1')).get('/api/health')).body,
      { status: 'ok' },
      'the first board serves on',
    );
  });

  test('a killed worker is logged and replaced; the other keeps answering meanwhile', async () => {
    const survivor = await board.clientOn('2');
    const before = childPids(board.child.process.pid!);
    const victim = before[0]!;
    process.kill(victim, 'SIGKILL');
    for (let i = 0; i < 20; i++) assert.equal((await survivor.get('/api/entry/feed/0')).status, 200);
    await waitForLine(board.child, new RegExp(`worker \\d \\(pid ${victim}\\) ended \\(SIGKILL\\); a new one starts`));
    const deadline = Date.now() + 20_000;
    while (
      childPids(board.child.process.pid!).filter((pid) => !before.includes(pid)).length === 0 &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 50));
    assert.equal(childPids(board.child.process.pid!).length, 2);
    await board.clientOn('1');
    await board.clientOn('2'); // both numbers serve again
    const primary = board.child.process.pid!;
    assert.deepEqual(
      [...listeningSocketsOn(Number(new URL(board.url).port), [primary, ...childPids(primary)]).values()],
      [0, 1, 1],
      'the new worker listens on the same port',
    );
    assert.ok((await board.scrape()).get('board_worker_restarts_total')! >= 1);
  });

  test('SIGTERM stops the workers and the primary: exit 0, no pid file, no process left', async () => {
    const pids = [board.child.process.pid!, ...childPids(board.child.process.pid!)];
    assert.equal(await board.stop(), 0);
    assert.equal(existsSync(join(board.dataDir, 'server.pid')), false);
    for (const pid of pids) assert.equal(processAlive(pid), false, `pid ${pid} is gone`);
    assert.match(board.child.output(), /board: SIGTERM, stopping 2 workers/);
  });
});

test('BOARD_WORKERS=2 on a port in use: one line and exit 1', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const failed = await startCluster({ PORT: String(port) }).then(
    () => undefined,
    (err: Error) => err,
  );
  assert.match(String(failed?.message), /exited \(1\) before listening/);
  assert.match(String(failed?.message), new RegExp(`board: PORT: ${port} on 127.0.0.1 is already in use`));
});

test('BOARD_WORKERS: a bad value stops the start with one line', async () => {
  const failed = await startServerProcess(join('/tmp', 'never-created-board'), { BOARD_WORKERS: 'many' }).then(
    () => undefined,
    (err: Error) => err,
  );
  assert.match(String(failed?.message), /board: BOARD_WORKERS: "many" must be a whole number 1–64 or auto/);
});

/** The largest BOARD_DISK_LOW_MB, in bytes: a volume with less free space than this is "low" to it. */
const largestLowBytes = 10 ** 7 * 2 ** 20;
const tmpVolume = statfsSync(tmpdir());

test('a volume already low at the start: the primary says so in one line, not each worker again', {
  skip:
    tmpVolume.bavail * tmpVolume.bsize >= largestLowBytes &&
    'the temporary folder has more free space than BOARD_DISK_LOW_MB can name',
}, async (t) => {
  const board = await startCluster({ BOARD_DISK_LOW_MB: String(10 ** 7) });
  t.after(() => board.close());
  // Each worker wrote its lines before it reported listening, and startCluster waited for all.
  const health = await fetch(`${board.url}/api/health`);
  assert.equal(health.status, 503);
  assert.deepEqual(await health.json(), { status: 'degraded', problems: ['disk_low'] });
  const lines = board.child
    .output()
    .split('\n')
    .filter((line) => line.startsWith('disk low:'));
  assert.equal(lines.length, 1, board.child.output());
  assert.match(lines[0]!, /^disk low: \d+(\.\d)? (KiB|MiB|GiB) free in \S+, less than BOARD_DISK_LOW_MB=10000000: /);
});
