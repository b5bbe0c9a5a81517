import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { maxNearAncestors, maxReplyDepth } from '../../lib/product.ts';
import { assertError, entryRow, limitsOff, post, useBoard, visitor } from '../helpers.ts';

/**
 * Finding 1 of the abuse review: one account built a 2,000-deep reply chain, and every thread
 * read near its bottom carried all ancestors (8.4 MB). docs/API.md "GET /api/entry/{pid}/thread"
 * and "POST /api/entry/create".
 */
describe('reply depth and the ancestors of a thread', () => {
  const t = useBoard({ env: limitsOff, members: ['Tiefe'] });
  const chain: number[] = [];

  before(async () => {
    chain.push(await post(t.members.Tiefe, 'Wurzel'));
    for (let depth = 1; depth <= maxReplyDepth; depth++)
      chain.push(await post(t.members.Tiefe, `Ebene ${depth}`, chain.at(-1)));
  });

  test('a reply 200 levels below its root is stored; one more level answers 400 entry.too_deep naming reply_to, and nothing is stored', async () => {
    assert.equal(entryRow(t.board, chain.at(-1)!)!.depth, 200);
    const before = entryRow(t.board, chain.at(-1)!)!;
    const answer = await t.members.Tiefe.post('/api/entry/create', { content: 'zu tief', reply_to: chain.at(-1) });
    assertError(answer, 400, 'entry.too_deep', { field: 'reply_to', exact: true });
    assert.equal(entryRow(t.board, chain.at(-1)!)!.reply_count, before.reply_count);
    assert.equal(
      (await t.members.Tiefe.post('/api/entry/create', { content: 'daneben geht', reply_to: chain.at(-2) })).status,
      201,
    );
  });

  test("the parent's 404 comes before the depth check", async () => {
    assertError(
      await t.members.Tiefe.post('/api/entry/create', { content: 'x', reply_to: 99_999 }),
      404,
      'entry.not_found',
    );
  });

  test("a deep entry's thread shows the root and the 99 nearest ancestors, and counts the rest in ancestors_skipped", async () => {
    const thread = (await visitor(t.board).get(`/api/entry/${chain[150]}/thread`)).body;
    assert.equal(thread.ancestors.length, 1 + maxNearAncestors);
    assert.equal(thread.ancestors[0].pid, chain[0], 'the root first');
    assert.deepEqual(
      thread.ancestors.slice(1).map((a: { pid: number }) => a.pid),
      chain.slice(51, 150),
      'then the nearest, root side first',
    );
    assert.equal(thread.ancestors_skipped, 50);
  });

  test('ancestors_skipped is absent when nothing is left out (100 ancestors, and a short thread)', async () => {
    const hundred = (await visitor(t.board).get(`/api/entry/${chain[100]}/thread`)).body;
    assert.equal(hundred.ancestors.length, 100);
    assert.deepEqual(
      hundred.ancestors.map((a: { pid: number }) => a.pid),
      chain.slice(0, 100),
    );
    assert.equal('ancestors_skipped' in hundred, false);
    const oneMore = (await visitor(t.board).get(`/api/entry/${chain[101]}/thread`)).body;
    assert.equal(oneMore.ancestors_skipped, 1);
    const short = (await visitor(t.board).get(`/api/entry/${chain[2]}/thread`)).body;
    assert.deepEqual(
      short.ancestors.map((a: { pid: number }) => a.pid),
      chain.slice(0, 2),
    );
    assert.equal('ancestors_skipped' in short, false);
  });
});
