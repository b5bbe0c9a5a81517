import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertDocumented, assertError, limitsOff, post, useBoard, visitor } from '../helpers.ts';

describe('GET /api/entry/votes?pids= (extension: many tallies at once)', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna', 'Bert'] });
  let pids: number[];
  before(async () => {
    pids = [
      await post(t.members.Anna, 'Erste Frage'),
      await post(t.members.Anna, 'Zweite Frage'),
      await post(t.members.Anna, 'Dritte Frage'),
    ];
    await t.members.Bert.post(`/api/entry/${pids[0]}/vote`, { mode: 'yes' });
    await t.members.Bert.post(`/api/entry/${pids[1]}/vote`, { mode: 'no' });
    await t.members.Anna.post(`/api/entry/${pids[1]}/vote`, { mode: 'no' });
  });

  test('answers the same tally objects as GET /api/entry/{pid}/votes, in the order asked', async () => {
    const order = [pids[2]!, pids[0]!, pids[1]!];
    const answer = await t.members.Bert.get(`/api/entry/votes?pids=${order.join(',')}`);
    assert.equal(answer.status, 200, answer.text);
    assertDocumented(answer);
    assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
    const single = await Promise.all(
      order.map(async (pid) => (await t.members.Bert.get(`/api/entry/${pid}/votes`)).body),
    );
    assert.deepEqual(answer.body, single);
    assert.deepEqual(answer.body, [
      { pid: pids[2], yes: 0, no: 0, selected: 'none' },
      { pid: pids[0], yes: 1, no: 0, selected: 'yes' },
      { pid: pids[1], yes: 0, no: 2, selected: 'no' },
    ]);
  });

  test("selected is the caller's own vote, and none without a session", async () => {
    const list = pids.join(',');
    assert.deepEqual(
      (await t.members.Anna.get(`/api/entry/votes?pids=${list}`)).body.map((t: { selected: string }) => t.selected),
      ['none', 'no', 'none'],
    );
    assert.deepEqual(
      (await visitor(t.board).get(`/api/entry/votes?pids=${list}`)).body.map((t: { selected: string }) => t.selected),
      ['none', 'none', 'none'],
    );
  });

  test('unknown pids are left out, a repeated pid is answered once, deleted entries keep their tally', async () => {
    const gone = await post(t.members.Anna, 'Wird gelöscht');
    await t.members.Bert.post(`/api/entry/${gone}/vote`, { mode: 'yes' });
    assert.equal((await t.members.Anna.post(`/api/entry/${gone}/delete`)).status, 200);
    const answer = await t.members.Bert.get(`/api/entry/votes?pids=999999,${pids[0]},${gone},${pids[0]},0`);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, [
      { pid: pids[0], yes: 1, no: 0, selected: 'yes' },
      { pid: gone, yes: 1, no: 0, selected: 'yes' },
    ]);
    assert.deepEqual((await t.members.Bert.get('/api/entry/votes?pids=424242')).body, []);
  });

  test('accepts exactly 100 pids', async () => {
    const hundred = Array.from({ length: 100 }, (_, i) => (i === 99 ? pids[0]! : 100_000 + i));
    const answer = await t.members.Bert.get(`/api/entry/votes?pids=${hundred.join(',')}`);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, [{ pid: pids[0], yes: 1, no: 0, selected: 'yes' }]);
  });

  const malformed: [string, string][] = [
    ['no pids parameter', '/api/entry/votes'],
    ['an empty list', '/api/entry/votes?pids='],
    ['a word', '/api/entry/votes?pids=eins'],
    ['a negative number', '/api/entry/votes?pids=-1'],
    ['a fraction', '/api/entry/votes?pids=1.5'],
    ['an empty item', '/api/entry/votes?pids=1,,2'],
    ['a trailing comma', '/api/entry/votes?pids=1,2,'],
    ['spaces', '/api/entry/votes?pids=1,%202'],
    ['16 digits', '/api/entry/votes?pids=1234567890123456'],
    ['101 pids', `/api/entry/votes?pids=${Array.from({ length: 101 }, (_, i) => i + 1).join(',')}`],
  ];
  for (const [name, path] of malformed) {
    test(`${name} answers 400 input.invalid naming pids`, async () => {
      assertError(await visitor(t.board).get(path), 400, 'input.invalid', 'pids');
    });
  }

  test('POST answers 405 with Allow: GET, HEAD', async () => {
    const answer = await t.members.Bert.post('/api/entry/votes?pids=1');
    assertError(answer, 405, 'api.method_not_allowed');
    assert.equal(answer.headers.get('allow'), 'GET, HEAD');
  });
});
