import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertError, eventually, post, useBoard, visitor } from '../helpers.ts';

/**
 * docs/API.md "How a search runs": every refusal of a search but the rate limit's comes no sooner
 * than 1 s after the request, on /api/search and on the page /suche. The board waits through its
 * search threads' `holdRefusal`, which this test holds at a gate of its own: a refusal stays
 * unanswered until the test lets it go, asked to wait what is left of the second; an answer with
 * entries never waits. (startBoard's other boards skip the wait.)
 */
describe('a refused search waits out its second', () => {
  const asked: number[] = [];
  const releases: (() => void)[] = [];
  const t = useBoard({
    members: ['Anna'],
    start: {
      searchThreads: {
        holdRefusal: (ms) => {
          asked.push(ms);
          return new Promise<void>((resolve) => releases.push(resolve));
        },
      },
    },
  });

  for (const [what, path, status, code] of [
    ['an empty q on /api/search', '/api/search/0?q=', 400, 'input.invalid'],
    ['an unknown author on /api/search', '/api/search/0?q=Hallo&user=Niemand', 404, 'user.not_found'],
    ['an unknown author on /suche', '/suche?q=Hallo&user=Niemand', 404, undefined],
  ] as const) {
    test(`${what}: unanswered until the hold lets it go, which was asked for the rest of 1 s`, async () => {
      asked.length = 0;
      let answered = false;
      const answer = visitor(t.board)
        .get(path)
        .finally(() => {
          answered = true;
        });
      await eventually('the refusal waits at the hold', () => asked.length === 1);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(answered, false, 'answered before the hold let it go');
      assert.ok(asked[0]! > 0 && asked[0]! <= 1000, `asked to wait ${asked[0]} ms`);
      releases.shift()!();
      const refused = await answer;
      if (code) assertError(refused, status, code);
      else assert.equal(refused.status, status);
    });
  }

  test('a search that finds entries answers without the hold', async () => {
    asked.length = 0;
    await post(t.members.Anna, 'Hallo zusammen');
    const found = await visitor(t.board).get('/api/search/0?q=Hallo');
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.length, 1);
    assert.deepEqual(asked, []);
  });
});
