import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client, TestBoard } from '../helpers.ts';
import { assertError, member, post, startEntryBoard, uidOf, visitor } from '../entry-helpers.ts';

type Mode = 'yes' | 'no';

function storedVote(board: TestBoard, pid: number, username: string): Mode | 'none' {
  const row = board.app.services.db.one<{ yes: number }>('SELECT yes FROM votes WHERE pid = ? AND uid = ?', pid, uidOf(board, username));
  return row === undefined ? 'none' : row.yes ? 'yes' : 'no';
}

function voteRowCounts(board: TestBoard, pid: number): { yes: number; no: number } {
  return board.app.services.db.one<{ yes: number; no: number }>(
    'SELECT coalesce(sum(yes), 0) AS yes, coalesce(sum(1 - yes), 0) AS no FROM votes WHERE pid = ?',
    pid,
  )!;
}

describe('the vote state machine (SPEC §3), row by row', () => {
  let board: TestBoard;
  let author: Client;
  let voter: Client;
  before(async () => {
    board = await startEntryBoard();
    author = await member(board, 'Autorin');
    voter = await member(board, 'Wähler');
  });
  after(() => board.close());

  // state before, mode sent, state after
  const rows: [Mode | 'none', Mode, Mode | 'none', string][] = [
    ['none', 'yes', 'yes', 'none + yes → yes'],
    ['none', 'no', 'no', 'none + no → no'],
    ['yes', 'yes', 'none', 'yes + yes → none (withdrawn)'],
    ['no', 'no', 'none', 'no + no → none (withdrawn)'],
    ['yes', 'no', 'no', 'yes + no → no'],
    ['no', 'yes', 'yes', 'no + yes → yes'],
  ];

  for (const [from, mode, to, name] of rows) {
    test(name, async () => {
      const pid = await post(author, `Frage: ${name}`);
      if (from !== 'none') assert.equal((await voter.post(`/api/entry/${pid}/vote`, { mode: from })).status, 200);
      assert.equal(storedVote(board, pid, 'Wähler'), from);

      const answer = await voter.post(`/api/entry/${pid}/vote`, { mode });
      assert.equal(answer.status, 200, answer.text);
      const expected = { pid, yes: to === 'yes' ? 1 : 0, no: to === 'no' ? 1 : 0, selected: to };
      assert.deepEqual(answer.body, expected);
      assert.deepEqual((await voter.get(`/api/entry/${pid}/votes`)).body, expected);
      assert.equal(storedVote(board, pid, 'Wähler'), to);
      assert.deepEqual(voteRowCounts(board, pid), { yes: expected.yes, no: expected.no });
    });
  }
});

describe('votes', () => {
  let board: TestBoard;
  let anna: Client;
  let bert: Client;
  let cora: Client;
  before(async () => {
    board = await startEntryBoard();
    anna = await member(board, 'Anna');
    bert = await member(board, 'Bert');
    cora = await member(board, 'Cora');
  });
  after(() => board.close());

  test('selected is each caller\'s own vote, and none without a session or without a vote', async () => {
    const pid = await post(anna, 'Abstimmung');
    await bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    await cora.post(`/api/entry/${pid}/vote`, { mode: 'no' });
    assert.deepEqual((await bert.get(`/api/entry/${pid}/votes`)).body, { pid, yes: 1, no: 1, selected: 'yes' });
    assert.deepEqual((await cora.get(`/api/entry/${pid}/votes`)).body, { pid, yes: 1, no: 1, selected: 'no' });
    assert.deepEqual((await anna.get(`/api/entry/${pid}/votes`)).body, { pid, yes: 1, no: 1, selected: 'none' });
    assert.deepEqual((await visitor(board).get(`/api/entry/${pid}/votes`)).body, { pid, yes: 1, no: 1, selected: 'none' });
  });

  test('the author may vote on their own entry', async () => {
    const pid = await post(anna, 'selbst');
    const answer = await anna.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { pid, yes: 1, no: 0, selected: 'yes' });
  });

  test('an invalid mode answers 400 vote.invalid_mode and leaves the state and the tally unchanged', async () => {
    const pid = await post(anna, 'ungültig');
    await bert.post(`/api/entry/${pid}/vote`, { mode: 'no' });
    await cora.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    for (const fields of [{ mode: 'maybe' }, { mode: 'YES' }, { mode: '' }, { mode: ' yes' }, {}]) {
      assertError(await bert.post(`/api/entry/${pid}/vote`, fields), 400, 'vote.invalid_mode');
    }
    assertError(await bert.post(`/api/entry/${pid}/vote`), 400, 'vote.invalid_mode');
    assert.equal(storedVote(board, pid, 'Bert'), 'no');
    assert.deepEqual((await bert.get(`/api/entry/${pid}/votes`)).body, { pid, yes: 1, no: 1, selected: 'no' });
  });

  test('multipart votes work like urlencoded ones', async () => {
    const pid = await post(anna, 'multipart');
    const answer = await bert.postMultipart(`/api/entry/${pid}/vote`, { mode: 'no' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { pid, yes: 0, no: 1, selected: 'no' });
  });

  test('an unknown entry answers 404 entry.not_found, for reading and for voting', async () => {
    assertError(await visitor(board).get('/api/entry/987654/votes'), 404, 'entry.not_found');
    assertError(await bert.post('/api/entry/987654/vote', { mode: 'yes' }), 404, 'entry.not_found');
    assert.equal(board.app.services.db.one<{ n: number }>('SELECT count(*) AS n FROM votes WHERE pid = 987654')!.n, 0);
  });

  test('voting needs a session: 401 auth.required', async () => {
    const pid = await post(anna, 'anonym?');
    assertError(await visitor(board).post(`/api/entry/${pid}/vote`, { mode: 'yes' }), 401, 'auth.required');
    assert.deepEqual(voteRowCounts(board, pid), { yes: 0, no: 0 });
  });

  test('after many votes every tally equals the count of vote rows, and the statistics counters agree', async () => {
    const pids = [await post(anna, 'eins'), await post(bert, 'zwei'), await post(cora, 'drei')];
    const voters = [anna, bert, cora, await member(board, 'Dora'), await member(board, 'Emil')];
    const modes: Mode[] = ['yes', 'no'];
    let n = 0;
    for (let round = 0; round < 4; round++) {
      for (const [i, client] of voters.entries()) {
        for (const [j, pid] of pids.entries()) {
          n++;
          const answer = await client.post(`/api/entry/${pid}/vote`, { mode: modes[(i * 7 + j * 3 + round * 5 + n) % 2]! });
          assert.equal(answer.status, 200);
        }
      }
    }
    for (const pid of pids) {
      const tally = (await visitor(board).get(`/api/entry/${pid}/votes`)).body;
      assert.deepEqual({ yes: tally.yes, no: tally.no }, voteRowCounts(board, pid), `tally of ${pid}`);
    }
    const db = board.app.services.db;
    const counters = Object.fromEntries(db.all<{ name: string; value: number }>('SELECT name, value FROM counters').map((c) => [c.name, c.value]));
    const totals = db.one<{ yes: number; no: number }>('SELECT coalesce(sum(yes), 0) AS yes, coalesce(sum(1 - yes), 0) AS no FROM votes')!;
    assert.equal(counters.votes_yes, totals.yes);
    assert.equal(counters.votes_no, totals.no);
  });

  test('a vote does not move last_activity', async () => {
    const pid = await post(anna, 'still');
    const before = (await visitor(board).get(`/api/entry/${pid}/thread`)).body.entry.last_activity;
    board.clock.advance(50);
    await bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    assert.equal((await visitor(board).get(`/api/entry/${pid}/thread`)).body.entry.last_activity, before);
  });
});

describe('a database failure while voting or counting', () => {
  let board: TestBoard;
  let anna: Client;
  let bert: Client;
  before(async () => {
    board = await startEntryBoard();
    anna = await member(board, 'Anna');
    bert = await member(board, 'Bert');
  });
  after(() => {
    board.app.services.db.setFault(undefined);
    return board.close();
  });

  test('while voting answers 500 internal in JSON, and nothing is half-written', async () => {
    const pid = await post(anna, 'kaputt');
    await bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    const db = board.app.services.db;
    // The vote row changes, then the counter update fails: the transaction must roll back.
    db.setFault((sql) => (/UPDATE counters/.test(sql) ? new Error('disk I/O error') : undefined));
    try {
      const answer = await bert.post(`/api/entry/${pid}/vote`, { mode: 'no' });
      assertError(answer, 500, 'internal');
      assert.deepEqual(Object.keys(answer.body), ['error']);
    } finally {
      db.setFault(undefined);
    }
    assert.equal(storedVote(board, pid, 'Bert'), 'yes');
    assert.deepEqual((await bert.get(`/api/entry/${pid}/votes`)).body, { pid, yes: 1, no: 0, selected: 'yes' });
    assert.ok(board.logs.some((line) => line.includes('disk I/O error')), 'the cause goes to the log');
  });

  test('while reading a tally answers 500 internal, never zeros', async () => {
    const pid = await post(anna, 'zählen');
    await bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    const db = board.app.services.db;
    db.setFault((sql) => (/FROM entries e LEFT JOIN votes/.test(sql) ? new Error('database disk image is malformed') : undefined));
    try {
      assertError(await visitor(board).get(`/api/entry/${pid}/votes`), 500, 'internal');
      assertError(await bert.get(`/api/entry/${pid}/votes`), 500, 'internal');
    } finally {
      db.setFault(undefined);
    }
    assert.deepEqual((await visitor(board).get(`/api/entry/${pid}/votes`)).body, { pid, yes: 1, no: 0, selected: 'none' });
  });

  test('when the tally after a successful vote cannot be read, the answer is 500 (the vote itself stays)', async () => {
    const pid = await post(anna, 'halb');
    const db = board.app.services.db;
    db.setFault((sql) => (/FROM entries e LEFT JOIN votes/.test(sql) ? new Error('disk I/O error') : undefined));
    try {
      assertError(await bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' }), 500, 'internal');
    } finally {
      db.setFault(undefined);
    }
    assert.equal(storedVote(board, pid, 'Bert'), 'yes');
  });
});
