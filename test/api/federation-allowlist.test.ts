import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, member, type TestBoard } from '../helpers.ts';
import { federationWaitMs, groupFollows, lookUpActor, startFederatedBoards } from '../helpers/federation.ts';

/**
 * BOARD_FEDERATION=allowlist (docs/OPERATIONS.md "Federation"): board A allows board B and no
 * other. C (which allows A) asks to follow A's Group as B does: B's follow is accepted and B gets
 * A's entries; C's Follow is refused, A keeps no follower there, and nothing of A reaches C.
 */

describe('a board opened to one other server alone', () => {
  let boards: TestBoard[];
  let a: TestBoard;
  let b: TestBoard;
  let c: TestBoard;
  const received: Record<string, unknown>[][] = [[], [], []];
  before(async () => {
    boards = await startFederatedBoards(3, {
      allows: (by, other) => by !== 0 || other === 1,
      federation: (i) => ({ received: (activity) => received[i]!.push(activity) }),
    });
    [a, b, c] = boards as [TestBoard, TestBoard, TestBoard];
  });
  after(async () => {
    for (const board of boards ?? []) await board.close();
  });

  test("B's follow is accepted and B gets A's entry; C's is refused and C gets nothing", async () => {
    const groupOfA = `${a.url}/ap/actor/board`;
    groupFollows(b, await lookUpActor(b, groupOfA));
    groupFollows(c, await lookUpActor(c, groupOfA));
    const following = (board: TestBoard) =>
      board.app.services.db.one<{ accepted_at: number }>(
        'SELECT accepted_at FROM federation_following WHERE actor_id = ?',
        groupOfA,
      );
    await eventually('B is accepted', () => (following(b)?.accepted_at ?? 0) > 0 || undefined, federationWaitMs);
    // C's Follow was POSTed to A and refused there: C waits to try again.
    await eventually(
      "A refused C's Follow",
      () => c.app.services.db.value('SELECT count(*) FROM federation_deliveries WHERE tries > 0') === 1 || undefined,
      federationWaitMs,
    );
    const anna = await member(a, 'Anna');
    const created = await anna.postMultipart('/api/entry/create', { content: 'Nur für Freunde' });
    const note = `${a.url}/e/${created.body.pid}`;
    await eventually(
      "the Group's boost at B",
      () =>
        received[1]!.find(
          (x) => x.type === 'Announce' && (x.object === note || (x.object as Record<string, unknown>)?.id === note),
        ),
      federationWaitMs,
    );
    assert.deepEqual(
      a.app.services.db.all<{ host: string }>('SELECT host FROM federation_followers').map((row) => row.host),
      [new URL(b.url).host],
    );
    assert.equal(following(c)?.accepted_at, 0, 'C was never accepted');
    assert.equal(
      a.app.services.db.value('SELECT count(*) FROM federation_deliveries WHERE host = ?', new URL(c.url).host),
      0,
    );
    assert.deepEqual(
      received[2]!.filter((x) => JSON.stringify(x).includes(a.url)),
      [],
      'nothing of A reached C',
    );
  });
});
