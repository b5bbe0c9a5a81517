import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { assertDocumented, assertError, limitsOff, member, post, uidOf, useBoard, visitor } from '../helpers.ts';
import { entryFields } from '../helpers/entries.ts';

describe('user feed', () => {
  const t = useBoard({ env: limitsOff, members: ['Anna Lena', 'Bert'] });
  const annas: number[] = []; // Anna's entries in creation order
  before(async () => {
    const bertsTop = await post(t.members.Bert, 'Bert fragt');
    for (let i = 0; i < 23; i++) {
      t.board.clock.advance(i % 3 === 0 ? 0 : 1); // some in the same second: pid decides
      annas.push(await post(t.members['Anna Lena'], `Anna ${i}`, i % 2 === 0 ? 0 : bertsTop));
      if (i === 5) await post(t.members.Bert, 'Bert dazwischen', bertsTop);
    }
  });

  test("lists the user's entries, replies included, newest first, 20 a page, then []", async () => {
    const client = visitor(t.board);
    const page0 = await client.get('/api/u/Anna%20Lena/feed/0');
    assert.equal(page0.status, 200, page0.text);
    assertDocumented(page0);
    const newestFirst = [...annas].reverse();
    assert.deepEqual(
      page0.body.map((e: { pid: number }) => e.pid),
      newestFirst.slice(0, 20),
    );
    assert.ok(
      page0.body.some((e: { reply_to: number }) => e.reply_to !== 0),
      'replies are included',
    );
    assert.ok(
      page0.body.every(
        (e: { uid: number; username: string }) => e.uid === uidOf(t.board, 'Anna Lena') && e.username === 'Anna Lena',
      ),
    );
    assert.deepEqual(
      Object.keys(page0.body[0])
        .filter((k) => k !== 'latest')
        .sort(),
      entryFields,
    );

    const page1 = await client.get('/api/u/Anna%20Lena/feed/1');
    assert.deepEqual(
      page1.body.map((e: { pid: number }) => e.pid),
      newestFirst.slice(20),
    );
    const page2 = await client.get('/api/u/Anna%20Lena/feed/2');
    assert.equal(page2.status, 200);
    assert.deepEqual(page2.body, []);
    assert.deepEqual((await client.get('/api/u/Anna%20Lena/feed/100')).body, []);
  });

  test('finds the user in any letter case', async () => {
    const answer = await visitor(t.board).get('/api/u/anna%20lena/feed/0');
    assert.equal(answer.status, 200);
    assert.equal(answer.body[0].pid, annas.at(-1));
  });

  test('leaves out deleted entries', async () => {
    const gone = [annas.at(-1)!, annas[10]!];
    for (const pid of gone) assert.equal((await t.members['Anna Lena'].post(`/api/entry/${pid}/delete`)).status, 200);
    const first = await visitor(t.board).get('/api/u/Anna%20Lena/feed/0');
    const second = await visitor(t.board).get('/api/u/Anna%20Lena/feed/1');
    const shown = [...first.body, ...second.body].map((e: { pid: number }) => e.pid);
    assert.deepEqual(
      shown,
      [...annas].reverse().filter((pid) => !gone.includes(pid)),
    );
    assert.equal(first.body.length, 20);
  });

  test("shows only that user's entries", async () => {
    const answer = await visitor(t.board).get('/api/u/Bert/feed/0');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.length, 2);
    assert.ok(answer.body.every((e: { username: string }) => e.username === 'Bert'));
  });

  test('a user without entries has an empty feed', async () => {
    await member(t.board, 'Stille');
    const answer = await visitor(t.board).get('/api/u/Stille/feed/0');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, []);
  });

  test('an unknown user answers 404 user.not_found', async () => {
    assertError(await visitor(t.board).get('/api/u/Niemand/feed/0'), 404, 'user.not_found');
  });

  test('a page outside 0–100 or not a whole number answers 400 input.invalid naming page', async () => {
    for (const page of ['101', '-1', 'x', '2.5']) {
      assertError(await visitor(t.board).get(`/api/u/Bert/feed/${page}`), 400, 'input.invalid', 'page');
    }
  });
});
