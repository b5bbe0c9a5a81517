import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { changeInstance } from '../../lib/federation/instances.ts';
import { inboxLimitRules, maxActorIdChars } from '../../lib/federation/inbox-door.ts';
import { scaledLimit } from '../../lib/limits/rate-limit.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { callGate, eventually, startBoard, type TestBoard } from '../helpers.ts';
import { startFakeInstance, type FakeInstance } from '../helpers/fake-instance.ts';
import { federatedEnv, federationWaitMs, freePorts, quickFederation } from '../helpers/federation.ts';

/**
 * docs/API.md "What comes in", step 5, under concurrency: an activity past the door takes its place
 * in its instance's and actor's share while its signature is verified, so activities in flight at
 * once cannot all pass before the first is counted; one whose signature fails gives its place
 * back. The verification is held open at a gate in front of the sender's key (the fake instance
 * answers its actor documents only when the test lets them go). And the door's own costs: its
 * counters are keyed by the public names (no hash per request), an actor id's length is bounded.
 */

const factor = 0.05;
const instanceShare = scaledLimit(inboxLimitRules.instance.windows[0]![0], factor);
const actorShare = scaledLimit(inboxLimitRules.actor.windows[0]![0], factor);

describe('the inbox shares hold for activities in flight', () => {
  const keys = callGate(['key']);
  let board: TestBoard;
  let fake: FakeInstance;

  before(async () => {
    const [boardPort, fakePort] = await freePorts(2);
    fake = await startFakeInstance(fakePort!, { beforeActor: () => keys.pass('key') });
    board = await startBoard(
      { ...federatedEnv(boardPort!, [boardPort!, fakePort!]), BOARD_LIMITS: String(factor) },
      { port: boardPort, federation: quickFederation },
    );
    changeInstance(board.app.services.db, fake.host, 'allow', administrator, board.clock.now());
  });
  afterEach(() => keys.releaseAll());
  after(async () => {
    keys.releaseAll();
    await board?.close();
    await fake?.close();
  });

  const like = (name: string) => fake.likeOf(name, `${board.config.origin}/e/1`);

  /**
   * Sends `names.length` activities at once, `held` of them held at the key gate; once the others
   * have their answers the gate opens. The statuses, counted.
   */
  async function atOnce(names: string[], held: number, key: 'own' | 'other' = 'own') {
    for (let i = 0; i < held; i++) keys.holdNext('key');
    let answered = 0;
    const answers = names.map((name) =>
      fake.send(`${board.url}/ap/inbox`, like(name), { key }).then((answer) => {
        answered++;
        return answer;
      }),
    );
    await eventually('the activities not held are answered', () => answered >= names.length - held, federationWaitMs);
    keys.releaseAll();
    const all = await Promise.all(answers);
    const tally = new Map<number, number>();
    for (const answer of all) tally.set(answer.status, (tally.get(answer.status) ?? 0) + 1);
    return { tally: Object.fromEntries(tally), all };
  }

  test(`${instanceShare + 3} activities from one instance in flight at once: ${instanceShare} taken, 3 refused 429`, async () => {
    assert.equal(instanceShare, 15);
    const names = Array.from({ length: instanceShare + 3 }, (_, i) => `ida${i}`);
    const { tally, all } = await atOnce(names, instanceShare);
    assert.deepEqual(tally, { 202: instanceShare, 429: 3 });
    const refusal = all.find((answer) => answer.status === 429)!;
    assert.equal(JSON.parse(refusal.body).error.code, 'rate.limited');
    assert.ok(Number(refusal.headers.get('retry-after')) >= 1, 'Retry-After');
    assert.equal((await fake.send(`${board.url}/ap/inbox`, like('ida0'))).status, 429, 'the share is used up');
  });

  test('forged activities in flight hold the share only until their signature fails', async () => {
    board.clock.advance(60); // the instance's minute is over
    const forged = await atOnce(Array(actorShare + 2).fill('bob'), actorShare, 'other');
    assert.deepEqual(forged.tally, { 401: actorShare, 429: 2 }, 'while they were verified, the share was theirs');
    for (let i = 1; i <= actorShare; i++)
      assert.equal((await fake.send(`${board.url}/ap/inbox`, like('bob'))).status, 202, `Bob's own activity ${i}`);
    assert.equal((await fake.send(`${board.url}/ap/inbox`, like('bob'))).status, 429, 'then his share is used up');
  });

  test('the shares count under the public names of the instance and the actor, no hash of them', async () => {
    const keys = board.app.services.db
      .all<{ key: Buffer }>('SELECT key FROM rate_limits')
      .map((row) => row.key.toString('utf8'));
    assert.ok(keys.includes(`federation_instance/60\n${fake.host}`), `the instance's minute: ${keys.join(' | ')}`);
    assert.ok(keys.includes(`federation_actor/3600\n${fake.actorOf('bob')}`), "Bob's hour");
  });

  test(`an actor id over ${maxActorIdChars} characters is refused 400 before its key is fetched`, async () => {
    const name = 'l'.repeat(maxActorIdChars);
    const answer = await fake.send(`${board.url}/ap/inbox`, like(name));
    assert.equal(answer.status, 400);
    const { code, field } = JSON.parse(answer.body).error;
    assert.deepEqual([code, field], ['input.invalid', 'actor']);
    assert.equal(fake.fetches(`/users/${name}`), 0, 'its key is not fetched');
  });
});
