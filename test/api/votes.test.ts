import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  limitsOff,
  member,
  post,
  uidOf,
  useBoard,
  visitor,
  type TestBoard,
} from '../helpers.ts';

type Mode = 'yes' | 'no';

function storedVote(board: TestBoard, pid: number, username: string): Mode | 'none' {
  const row = board.app.services.db.one<{ yes: number }>(
    'SELECT yes FROM votes WHERE pid = ? AND uid = ?',
    pid,
    uidOf(board, username),
  );
  return row === undefined ? 'none' : row.yes ? 'yes' : 'no';
}

function voteRowCounts(board: TestBoard, pid: number): { yes: number; no: number } {
  return board.app.services.db.one<{ yes: number; no: number }>(
    'SELECT coalesce(sum(yes), 0) AS yes, coalesce(sum(1 - yes), 0) AS no FROM votes WHERE pid = ?',
    pid,
  )!;
}

describe('the vote state machine (docs/API.md "POST /api/entry/{pid}/vote"), row by row', () => {
  const t = useBoard({ env: limitsOff, members: ['Autorin', 'Wähler'] });

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
      const pid = await post(t.members.Autorin, `Frage: ${name}`);
      if (from !== 'none')
        assert.equal((await t.members.Wähler.post(`/api/entry/${pid}/vote`, { mode: from })).status, 200);
      assert.equal(storedVote(t.board, pid, 'Wähler'), from);

      const answer = await t.members.Wähler.post(`/api/entry/${pid}/vote`, { mode });
      assert.equal(answer.status, 200, answer.text);
      assertDocumented(answer);
      const expected = { pid, yes: to === 'yes' ? 1 : 0, no: to === 'no' ? 1 : 0, selected: to };
      assert.deepEqual(answer.body, expected);
      const tally = await t.members.Wähler.get(`/api/entry/${pid}/votes`);
      assertDocumented(tally);
      assert.deepEqual(tally.body, expected);
      assert.equal(storedVote(t.board, pid, 'Wähler'), to);
      assert.deepEqual(voteRowCounts(t.board, pid), { yes: expected.yes, no: expected.no });
    });
  }
});

describe('votes', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert', 'Cora'] });

  test("selected is each caller's own vote, and none without a session or without a vote", async () => {
    const pid = await post(t.members.Anna, 'Abstimmung');
    await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    await t.members.Cora.post(`/api/entry/${pid}/vote`, { mode: 'no' });
    assert.deepEqual((await t.members.Bert.get(`/api/entry/${pid}/votes`)).body, {
      pid,
      yes: 1,
      no: 1,
      selected: 'yes',
    });
    assert.deepEqual((await t.members.Cora.get(`/api/entry/${pid}/votes`)).body, {
      pid,
      yes: 1,
      no: 1,
      selected: 'no',
    });
    assert.deepEqual((await t.members.Anna.get(`/api/entry/${pid}/votes`)).body, {
      pid,
      yes: 1,
      no: 1,
      selected: 'none',
    });
    assert.deepEqual((await visitor(t.board).get(`/api/entry/${pid}/votes`)).body, {
      pid,
      yes: 1,
      no: 1,
      selected: 'none',
    });
  });

  test('the author may vote on their own entry', async () => {
    const pid = await post(t.members.Anna, 'selbst');
    const answer = await t.members.Anna.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { pid, yes: 1, no: 0, selected: 'yes' });
  });

  test('an invalid mode answers 400 vote.invalid_mode and leaves the state and the tally unchanged', async () => {
    const pid = await post(t.members.Anna, 'ungültig');
    await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'no' });
    await t.members.Cora.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    for (const fields of [{ mode: 'maybe' }, { mode: 'YES' }, { mode: '' }, { mode: ' yes' }, {}]) {
      assertError(await t.members.Bert.post(`/api/entry/${pid}/vote`, fields), 400, 'vote.invalid_mode');
    }
    assertError(await t.members.Bert.post(`/api/entry/${pid}/vote`), 400, 'vote.invalid_mode');
    assert.equal(storedVote(t.board, pid, 'Bert'), 'no');
    assert.deepEqual((await t.members.Bert.get(`/api/entry/${pid}/votes`)).body, {
      pid,
      yes: 1,
      no: 1,
      selected: 'no',
    });
  });

  test('multipart votes work like urlencoded ones', async () => {
    const pid = await post(t.members.Anna, 'multipart');
    const answer = await t.members.Bert.postMultipart(`/api/entry/${pid}/vote`, { mode: 'no' });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { pid, yes: 0, no: 1, selected: 'no' });
  });

  test('an unknown entry answers 404 entry.not_found, for reading and for voting', async () => {
    assertError(await visitor(t.board).get('/api/entry/987654/votes'), 404, 'entry.not_found');
    assertError(await t.members.Bert.post('/api/entry/987654/vote', { mode: 'yes' }), 404, 'entry.not_found');
    assert.equal(t.board.app.services.db.value('SELECT count(*) FROM votes WHERE pid = 987654'), 0);
  });

  test('voting needs a session: 401 auth.required', async () => {
    const pid = await post(t.members.Anna, 'anonym?');
    assertError(await visitor(t.board).post(`/api/entry/${pid}/vote`, { mode: 'yes' }), 401, 'auth.required');
    assert.deepEqual(voteRowCounts(t.board, pid), { yes: 0, no: 0 });
  });

  test('after many votes every tally equals the count of vote rows, and the statistics counters agree', async () => {
    const pids = [
      await post(t.members.Anna, 'eins'),
      await post(t.members.Bert, 'zwei'),
      await post(t.members.Cora, 'drei'),
    ];
    const voters = [
      t.members.Anna,
      t.members.Bert,
      t.members.Cora,
      await member(t.board, 'Dora'),
      await member(t.board, 'Emil'),
    ];
    const modes: Mode[] = ['yes', 'no'];
    let n = 0;
    for (let round = 0; round < 4; round++) {
      for (const [i, client] of voters.entries()) {
        for (const [j, pid] of pids.entries()) {
          n++;
          const answer = await client.post(`/api/entry/${pid}/vote`, {
            mode: modes[(i * 7 + j * 3 + round * 5 + n) % 2]!,
          });
          assert.equal(answer.status, 200);
        }
      }
    }
    for (const pid of pids) {
      const tally = (await visitor(t.board).get(`/api/entry/${pid}/votes`)).body;
      assert.deepEqual({ yes: tally.yes, no: tally.no }, voteRowCounts(t.board, pid), `tally of ${pid}`);
    }
    const db = t.board.app.services.db;
    const counters = Object.fromEntries(
      db.all<{ name: string; value: number }>('SELECT name, value FROM counters').map((c) => [c.name, c.value]),
    );
    const totals = db.one<{ yes: number; no: number }>(
      'SELECT coalesce(sum(yes), 0) AS yes, coalesce(sum(1 - yes), 0) AS no FROM votes',
    )!;
    assert.equal(counters.votes_yes, totals.yes);
    assert.equal(counters.votes_no, totals.no);
  });

  test('a vote does not move last_activity', async () => {
    const pid = await post(t.members.Anna, 'still');
    const before = (await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.last_activity;
    t.board.clock.advance(50);
    await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    assert.equal((await visitor(t.board).get(`/api/entry/${pid}/thread`)).body.entry.last_activity, before);
  });
});

describe('a database failure while voting or counting', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });

  test('while voting answers 500 internal in JSON, and nothing is half-written', async () => {
    const pid = await post(t.members.Anna, 'kaputt');
    await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    const db = t.board.app.services.db;
    // The vote row changes, then the counter update fails: the transaction must roll back.
    db.setFault((sql) => (/UPDATE counters/.test(sql) ? new Error('disk I/O error') : undefined));
    try {
      const answer = await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'no' });
      assertError(answer, 500, 'internal');
      assert.deepEqual(Object.keys(answer.body), ['error']);
    } finally {
      db.setFault(undefined);
    }
    assert.equal(storedVote(t.board, pid, 'Bert'), 'yes');
    assert.deepEqual((await t.members.Bert.get(`/api/entry/${pid}/votes`)).body, {
      pid,
      yes: 1,
      no: 0,
      selected: 'yes',
    });
    assert.ok(
      t.board.logs.some((line) => line.includes('disk I/O error')),
      'the cause goes to the log',
    );
  });

  test('while reading a tally answers 500 internal, never zeros', async () => {
    const pid = await post(t.members.Anna, 'zählen');
    await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' });
    const db = t.board.app.services.db;
    db.setFault((sql) =>
      /FROM entries e LEFT JOIN votes/.test(sql) ? new Error('database disk image is malformed') : undefined,
    );
    try {
      assertError(await visitor(t.board).get(`/api/entry/${pid}/votes`), 500, 'internal');
      assertError(await t.members.Bert.get(`/api/entry/${pid}/votes`), 500, 'internal');
    } finally {
      db.setFault(undefined);
    }
    assert.deepEqual((await visitor(t.board).get(`/api/entry/${pid}/votes`)).body, {
      pid,
      yes: 1,
      no: 0,
      selected: 'none',
    });
  });

  test('when the tally after a successful vote cannot be read, the answer is 500 (the vote itself stays)', async () => {
    const pid = await post(t.members.Anna, 'halb');
    const db = t.board.app.services.db;
    db.setFault((sql) => (/FROM entries e LEFT JOIN votes/.test(sql) ? new Error('disk I/O error') : undefined));
    try {
      assertError(await t.members.Bert.post(`/api/entry/${pid}/vote`, { mode: 'yes' }), 500, 'internal');
    } finally {
      db.setFault(undefined);
    }
    assert.equal(storedVote(t.board, pid, 'Bert'), 'yes');
  });
});
