import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { openDb } from '../../lib/db/db.ts';
import { backfillBelowMark } from '../../lib/search/index.ts';
import {
  accountRemovalDone,
  consistencyProblems,
  imageFixture,
  indexedPids,
  limitsOff,
  livePids,
  member,
  oldBoard,
  password,
  post,
  searchIndexProblems,
  startProxiedBoard,
  useBoard,
  visitor,
  type TestBoard,
  emptyFolder,
} from '../helpers.ts';

/** docs/API.md "Search": the index holds exactly the live entries, kept right in the transaction of every write. */

async function pidsFound(board: TestBoard, q: string): Promise<number[]> {
  const answer = await visitor(board).get(`/api/search/0?q=${encodeURIComponent(q)}`);
  assert.equal(answer.status, 200, answer.text);
  return answer.body.map((e: { pid: number }) => e.pid);
}

function assertIndexWhole(board: TestBoard): void {
  assert.deepEqual(indexedPids(board), livePids(board));
  assert.deepEqual(consistencyProblems(board.app.services.db.raw), []);
}

/** The same for a board whose rows were written by hand (its counters are not the point). */
function assertIndexMatchesEntries(board: TestBoard): void {
  assert.deepEqual(indexedPids(board), livePids(board));
  assert.deepEqual(searchIndexProblems(board.app.services.db.raw), []);
}

describe('the search index under every write', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] });

  test('create indexes at once; edit replaces the words; delete takes the entry out', async () => {
    const pid = await post(t.members.Anna, 'Erdbeerkuchen mit Sahne');
    assert.deepEqual(await pidsFound(t.board, 'erdbeer'), [pid]);
    assert.equal(
      (await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'Apfelstrudel mit Vanille' })).status,
      200,
    );
    assert.deepEqual(await pidsFound(t.board, 'erdbeer'), [], 'the old words are gone');
    assert.deepEqual(await pidsFound(t.board, 'strudel'), [pid]);
    assert.deepEqual(await pidsFound(t.board, 'mit'), [pid], 'words both texts share are there once');
    assertIndexWhole(t.board);
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assert.deepEqual(await pidsFound(t.board, 'strudel'), []);
    assertIndexWhole(t.board);
  });

  test('an image description is searched with the text: found by its words, replaced by an edit, kept when the edit has no alt field', async () => {
    const image = await imageFixture();
    const created = await t.members.Anna.postMultipart(
      '/api/entry/create',
      { content: 'Urlaubsbild', alt: 'Sonnenblumenfeld im Abendlicht' },
      [{ name: 'file', filename: 'x.jpg', type: 'image/jpeg', data: image }],
    );
    assert.equal(created.status, 201, created.text);
    const pid = created.body.pid as number;
    assert.deepEqual(await pidsFound(t.board, 'sonnenblumen'), [pid], "the description's words");
    assert.deepEqual(await pidsFound(t.board, 'urlaubsbild sonnenblumen'), [pid], 'text and description together');
    assert.equal(
      (await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'Urlaubsbild vom Juli' })).status,
      200,
    );
    assert.deepEqual(await pidsFound(t.board, 'abendlicht'), [pid], 'an edit without alt keeps the description');
    assert.equal(
      (await t.members.Anna.post(`/api/entry/${pid}/edit`, { content: 'Urlaubsbild vom Juli', alt: 'Ein Kornfeld' }))
        .status,
      200,
    );
    assert.deepEqual(await pidsFound(t.board, 'sonnenblumen'), [], 'the old description is gone');
    assert.deepEqual(await pidsFound(t.board, 'kornfeld'), [pid]);
    assertIndexWhole(t.board);
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/delete`)).status, 200);
    assert.deepEqual(await pidsFound(t.board, 'kornfeld'), []);
    assertIndexWhole(t.board);
  });

  test('a removal takes the entry out (its text stays stored); a restore brings it back', async () => {
    const pid = await post(t.members.Bert, 'Billige Uhrenwerbung hier');
    assert.deepEqual(await pidsFound(t.board, 'uhrenwerbung'), [pid]);
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'Werbung' })).status, 200);
    assert.deepEqual(await pidsFound(t.board, 'uhrenwerbung'), []);
    assertIndexWhole(t.board);
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/restore`)).status, 200);
    assert.deepEqual(await pidsFound(t.board, 'uhrenwerbung'), [pid]);
    assertIndexWhole(t.board);
  });

  test('a ban with purge takes every live entry of the account out', async () => {
    const spammer = await member(t.board, 'Spammer');
    const first = await post(spammer, 'Kaufen Sie Zaubertrank');
    await post(spammer, 'Noch mehr Zaubertrank');
    assert.equal((await pidsFound(t.board, 'zaubertrank')).length, 2);
    assert.ok(first);
    const ban = await t.members.Mia.post('/api/mod/user/Spammer/ban', { reason: 'Werbung', purge: '1' });
    assert.equal(ban.status, 200, ban.text);
    assert.deepEqual(await pidsFound(t.board, 'zaubertrank'), []);
    assertIndexWhole(t.board);
  });

  test("an account deletion takes the account's entries out, tombstones and removed rows alike", async () => {
    const leaving = await member(t.board, 'Leaving');
    const top = await post(leaving, 'Abschiedsgruß an alle');
    await post(t.members.Anna, 'Schade, Abschiedsgruß erwidert', top);
    await post(leaving, 'Noch ein Abschiedsgruß');
    assert.equal((await pidsFound(t.board, 'abschiedsgruß')).length, 3);
    assert.equal((await leaving.post('/api/user/delete', { pass1: password })).status, 200);
    await accountRemovalDone(t.board);
    assert.equal((await pidsFound(t.board, 'abschiedsgruß')).length, 1, 'only the reply of another account is left');
    assertIndexWhole(t.board);
  });
});

describe('the backfill of a board that had entries before the index', () => {
  const dataDir = emptyFolder('board-backfill-');
  const old = Array.from({ length: 25 }, (_, i) => (i === 7 ? '' : `Altbestand Nummer ${i}`));
  let board: TestBoard | undefined;
  after(async () => {
    await board?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('while it waits, search answers from what is indexed: new entries, not the old ones', async () => {
    oldBoard(dataDir, old);
    board = await startProxiedBoard(limitsOff, {
      dataDir,
      searchBackfill: { paused: true, batch: 4, sliceMs: 0, progressMs: 0 },
    });
    const { db } = board.app.services;
    assert.deepEqual(db.one('SELECT next_below, total FROM search_backfill'), { next_below: 26, total: 25 });
    const anna = await member(board, 'Anna');
    const fresh = await post(anna, 'Neubestand');
    assert.deepEqual(await pidsFound(board, 'bestand'), [fresh]);
    // Writes on entries below the mark leave the index alone; the backfill reads them as they are then.
    db.run("UPDATE entries SET content = 'Altbestand bearbeitet' WHERE pid = 3");
    db.run("UPDATE entries SET deleted = 1, content = '' WHERE pid = 5");
    assert.deepEqual(indexedPids(board), [fresh]);
  });

  test('resumed, it indexes every older live entry, newest first, logs its progress and removes its mark', async () => {
    const { db } = board!.app.services;
    assert.equal(
      db.tx(() => backfillBelowMark(db, 4)),
      4,
      'one batch by hand: the mark moves below it',
    );
    assert.deepEqual(db.one('SELECT next_below FROM search_backfill'), { next_below: 22 });
    assert.deepEqual(indexedPids(board!).slice(0, 4), [22, 23, 24, 25]);
    board!.app.jobs!.searchBackfill!.resume();
    await board!.app.jobs!.searchBackfill!.finished;
    assert.equal(db.one('SELECT 1 FROM search_backfill'), undefined);
    assertIndexMatchesEntries(board!);
    assert.equal((await pidsFound(board!, 'altbestand')).length, 20);
    assert.equal(
      (await visitor(board!).get('/api/search/1?q=altbestand')).body.length,
      3,
      '25 old entries, one deleted before, one after the start',
    );
    assert.deepEqual(await pidsFound(board!, 'bearbeitet'), [3]);
    assert.ok(
      board!.logs.some((line) => /^search: indexing 21 older entries in the background/.test(line)),
      board!.logs.join('\n'),
    );
    assert.ok(
      board!.logs.some((line) => /^search: \d+ of 25 older entries looked at \(\d+ %\)$/.test(line)),
      board!.logs.join('\n'),
    );
    assert.ok(board!.logs.some((line) => line.startsWith('search: the index is complete')));
    assert.ok(
      board!.logs.some((line) => line.startsWith('search: segments merged')),
      'its many small segments become one',
    );
  });

  test('the next start finds the index complete and logs nothing about it', async () => {
    await board!.close();
    board = await startProxiedBoard(limitsOff, { dataDir });
    await board.app.jobs!.searchBackfill!.finished;
    assert.equal(board.logs.filter((line) => line.startsWith('search:')).length, 0);
    assertIndexMatchesEntries(board);
  });
});

describe('the backfill across restarts and processes', () => {
  const dataDir = emptyFolder('board-backfill-');
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  test('stopped half-way it goes on where it stopped; two processes at once index every entry once', async () => {
    oldBoard(
      dataDir,
      Array.from({ length: 60 }, (_, i) => `Eintrag ${i}`),
    );
    const first = openDb(join(dataDir, 'board.db'));
    first.tx(() => backfillBelowMark(first, 10));
    await first.close();
    const one = await startProxiedBoard(limitsOff, { dataDir, searchBackfill: { paused: true, batch: 3, sliceMs: 0 } });
    const two = await startProxiedBoard(limitsOff, { dataDir, searchBackfill: { paused: true, batch: 3, sliceMs: 0 } });
    try {
      assert.deepEqual(one.app.services.db.one('SELECT next_below FROM search_backfill'), { next_below: 51 });
      one.app.jobs!.searchBackfill!.resume();
      two.app.jobs!.searchBackfill!.resume();
      await Promise.all([one.app.jobs!.searchBackfill!.finished, two.app.jobs!.searchBackfill!.finished]);
      assertIndexMatchesEntries(one);
      assert.equal((await pidsFound(one, 'eintrag')).length, 20, 'a page of 20');
      assert.equal((await visitor(one).get('/api/search/2?q=eintrag')).body.length, 20, 'and 60 in all');
    } finally {
      await two.close();
      await one.close();
    }
  });
});
