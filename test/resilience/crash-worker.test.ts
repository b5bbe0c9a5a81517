import Database from 'better-sqlite3';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { startCluster, type ClusterBoard } from '../helpers/cluster-board.ts';
import { childPids } from '../helpers/processes.ts';
import { consistencyProblems } from '../helpers/consistency.ts';
import { prng, randomTools, recordSummary, scaled, seed } from './soak.ts';
import { verifyAcked, WriteLoad } from './write-load.ts';
import { emptyFolder } from '../helpers.ts';

const kills = scaled(3, 20);
const writers = scaled(6, 8);
const dataDir = emptyFolder('board-crash-worker-');
let board: ClusterBoard | undefined;
let load: WriteLoad | undefined;

after(async () => {
  await load?.stop(); // a failed test must not leave the loops writing on
  await board?.close();
});

/** The worker number the primary gave a worker process (its environment says it). */
function workerIndexOf(pid: number): string | undefined {
  const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return environ.find((entry) => entry.startsWith('BOARD_WORKER_INDEX='))?.split('=')[1];
}

function checkDatabase(written: WriteLoad, when: string): void {
  const db = new Database(join(dataDir, 'board.db'));
  try {
    assert.deepEqual(consistencyProblems(db), [], when);
    assert.deepEqual(verifyAcked(db, written.acked, join(dataDir, 'media')).problems, [], when);
  } finally {
    db.close();
  }
}

test(`BOARD_WORKERS=2: SIGKILL to one worker at a time (${kills} times) under a write load loses no acknowledged write, and the other worker keeps answering`, {
  timeout: scaled(120_000, 1_200_000),
}, async () => {
  const rnd = randomTools(prng(seed));
  board = await startCluster({}, dataDir);
  const primary = board.child.process.pid!;
  load = new WriteLoad(board.url, rnd.random, writers, 'workers');
  await load.start();

  for (let kill = 1; kill <= kills; kill++) {
    await new Promise((resolve) => setTimeout(resolve, scaled(rnd.int(300, 1500), rnd.int(500, 4000))));
    const target = kill % 2 ? '1' : '2';
    const survivor = await board.clientOn(target === '1' ? '2' : '1');
    const victim = childPids(primary).find((pid) => workerIndexOf(pid) === target)!;
    load.serverDown(); // requests in flight on the victim's connections are cut off, not lost
    process.kill(victim, 'SIGKILL');
    for (let i = 0; i < 10; i++)
      assert.equal(
        (await survivor.get('/api/entry/feed/0')).status,
        200,
        `the other worker answers after kill ${kill}`,
      );
    await load.settled();
    checkDatabase(load, `after kill ${kill}`);
    load.serverUp(board.url);
    const deadline = Date.now() + 20_000;
    while (!childPids(primary).some((pid) => pid !== victim && workerIndexOf(pid) === target) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      childPids(primary).some((pid) => workerIndexOf(pid) === target),
      `worker ${target} was replaced`,
    );
  }

  // The last stop is a SIGTERM to the primary under the load: the workers finish what they answer.
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(
    (await board.scrape()).get('board_worker_restarts_total'),
    kills,
    'every death was counted (and logged)',
  );
  load.serverDown();
  assert.equal(await board.stop(), 0, 'SIGTERM under load stops the cluster cleanly');
  await load.stop();
  assert.equal(existsSync(join(dataDir, 'server.pid')), false);
  assert.deepEqual(load.stats.serverErrors, [], 'no 500 while the load ran');
  assert.deepEqual(load.stats.unexpectedFailures, [], 'no request failed while its worker was up');
  checkDatabase(load, 'at the end');
  assert.ok(load.acked.entries.size > 20, `the load wrote entries (${load.acked.entries.size})`);
  console.log(
    `crash-worker: seed ${seed}, ${kills} worker kills, ${load.stats.acknowledged} writes acknowledged, ${load.stats.cutOff} cut off`,
  );
  recordSummary({
    workerKills: kills,
    writesAcknowledged: load.stats.acknowledged,
    serverErrors: load.stats.serverErrors.length,
  });
});
