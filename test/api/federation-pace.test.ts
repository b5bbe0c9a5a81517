import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, afterEach, before, describe, test } from 'node:test';
import { changeInstance } from '../../lib/federation/instances.ts';
import { inboxLimitRules } from '../../lib/federation/inbox-door.ts';
import { inboxPace } from '../../lib/federation/inbox-pace.ts';
import { scaledLimit } from '../../lib/limits/rate-limit.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { callGate, eventually, startBoard, type TestBoard } from '../helpers.ts';
import { startFakeInstance, type FakeInstance } from '../helpers/fake-instance.ts';
import { federatedEnv, federationWaitMs, freePorts, quickFederation } from '../helpers/federation.ts';

/**
 * docs/API.md "What comes in", "The pace": a refusal of a known instance's activity is held before
 * it goes (at a gate the test holds, standing for the timer), a bounded number at once, past which
 * it goes at once with `Connection: close`; only a few of one instance's activities are verified at
 * once (a gate in front of the fake instance's keys holds them), what waits for a turn is bounded
 * (past it 429), and another instance is served meanwhile.
 */

type Answer = Awaited<ReturnType<FakeInstance['send']>>;
const asSeen = (answer: Promise<Answer>) => answer.then(({ status, body }) => ({ status, text: body }));

describe('refusals go at the board’s pace', () => {
  const factor = 0.05;
  const actorShare = scaledLimit(inboxLimitRules.actor.windows[0]![0], factor);
  const holds = callGate(['hold']);
  let board: TestBoard;
  let fake: FakeInstance;
  let stranger: FakeInstance;

  before(async () => {
    const [boardPort, fakePort, strangerPort] = await freePorts(3);
    fake = await startFakeInstance(fakePort!);
    stranger = await startFakeInstance(strangerPort!);
    board = await startBoard(
      { ...federatedEnv(boardPort!, [boardPort!, fakePort!, strangerPort!]), BOARD_LIMITS: String(factor) },
      { port: boardPort, federation: { ...quickFederation, inboxPace: { hold: () => holds.pass('hold') } } },
    );
    changeInstance(board.app.services.db, fake.host, 'allow', administrator, board.clock.now());
    for (let i = 1; i <= actorShare; i++)
      assert.equal((await send(fake, 'vera')).status, 202, `Vera's activity ${i} in her share`);
  });
  afterEach(() => holds.releaseAll());
  after(async () => {
    holds.releaseAll();
    await board?.close();
    await fake?.close();
    await stranger?.close();
  });

  const send = (from: FakeInstance, name: string, key: 'own' | 'other' = 'own') =>
    from.send(`${board.url}/ap/inbox`, from.likeOf(name, `${board.config.origin}/e/1`), { key });

  /** Sends one activity with the hold armed: it must wait at the hold before its answer goes. */
  async function held(request: () => Promise<Answer>): Promise<Answer> {
    const hold = holds.holdNext('hold');
    const answer = request();
    await hold.reachedBy(asSeen(answer));
    hold.release();
    return answer;
  }

  test('a sender past its share gets its 429 only after the hold', async () => {
    const answer = await held(() => send(fake, 'vera'));
    assert.equal(answer.status, 429);
    assert.equal(JSON.parse(answer.body).error.code, 'rate.limited');
    assert.ok(Number(answer.headers.get('retry-after')) >= 1, 'Retry-After');
    assert.notEqual(answer.headers.get('connection'), 'close', 'a held answer keeps its connection');
  });

  test('a signature that does not verify gets its 401 only after the hold', async () => {
    assert.equal((await held(() => send(fake, 'fritz', 'other'))).status, 401);
  });

  test('an instance not admitted gets its 403 only after the hold', async () => {
    const answer = await held(() => send(stranger, 'otto'));
    assert.equal(answer.status, 403);
    assert.equal(JSON.parse(answer.body).error.code, 'federation.instance_refused');
  });

  test(`at most ${inboxPace.heldPerInstance} refusals of one instance are held; the next goes at once with Connection: close`, async () => {
    const waiting = Array.from({ length: inboxPace.heldPerInstance }, () => holds.holdNext('hold'));
    const answers = waiting.map(() => send(fake, 'vera'));
    await Promise.all(waiting.map((hold, i) => hold.reachedBy(asSeen(answers[i]!))));
    const oneMore = holds.holdNext('hold');
    const next = send(fake, 'vera');
    await assert.rejects(oneMore.reachedBy(asSeen(next)), /answered before it reached the gate/);
    const answer = await next;
    assert.equal(answer.status, 429);
    assert.equal(answer.headers.get('connection'), 'close');
    holds.releaseAll();
    for (const one of await Promise.all(answers)) {
      assert.equal(one.status, 429);
      assert.notEqual(one.headers.get('connection'), 'close');
    }
  });
});

describe('verification takes turns', () => {
  const keys = callGate(['key']);
  const events: string[] = [];
  let board: TestBoard;
  let fake: FakeInstance;
  let other: FakeInstance;

  before(async () => {
    const [boardPort, fakePort, otherPort] = await freePorts(3);
    fake = await startFakeInstance(fakePort!, {
      beforeActor: (name) => {
        events.push(`key ${name}`);
        return keys.pass('key');
      },
    });
    other = await startFakeInstance(otherPort!);
    board = await startBoard(federatedEnv(boardPort!, [boardPort!, fakePort!, otherPort!]), {
      port: boardPort,
      federation: { ...quickFederation, inboxPace: { hold: async () => {} } },
    });
    for (const instance of [fake, other])
      changeInstance(board.app.services.db, instance.host, 'allow', administrator, board.clock.now());
  });
  afterEach(() => keys.releaseAll());
  after(async () => {
    keys.releaseAll();
    await board?.close();
    await fake?.close();
    await other?.close();
  });

  const send = (from: FakeInstance, name: string) =>
    from.send(`${board.url}/ap/inbox`, from.likeOf(name, `${board.config.origin}/e/1`)).then((answer) => {
      events.push(`answer ${name} ${answer.status}`);
      return answer;
    });
  const keysFetched = () => new Set(events.filter((event) => event.startsWith('key ')));

  const turns = inboxPace.verifyingPerInstance;
  test(`${turns} activities of one instance are verified at once; the ${turns + 1}th waits for a turn`, async () => {
    const gates = Array.from({ length: turns + 1 }, () => keys.holdNext('key'));
    const names = Array.from({ length: turns + 1 }, (_, i) => `turn${i}`);
    const answers = names.map((name) => send(fake, name));
    await eventually(`${turns} keys asked for`, () => keysFetched().size >= turns, federationWaitMs);
    gates[0]!.release();
    await eventually(
      'one activity answered',
      () => events.some((event) => event.startsWith('answer ')),
      federationWaitMs,
    );
    await eventually(`all ${turns + 1} keys asked for`, () => keysFetched().size === turns + 1, federationWaitMs);
    keys.releaseAll();
    assert.deepEqual(
      (await Promise.all(answers)).map((answer) => answer.status),
      names.map(() => 202),
    );
    const firstAnswer = events.findIndex((event) => event.startsWith('answer '));
    const lastKey = names
      .map((name) => events.indexOf(`key ${name}`))
      .sort((x, y) => x - y)
      .at(-1)!;
    assert.ok(
      lastKey > firstAnswer,
      `the last activity's key is asked for only once another's turn ended: ${events.join(', ')}`,
    );
  });

  const line = turns + inboxPace.waitingPerInstance;
  test(`past ${inboxPace.waitingPerInstance} waiting, an activity is refused 429 with Retry-After; another instance is served meanwhile`, async () => {
    for (let i = 0; i < turns; i++) keys.holdNext('key');
    // One more than the line holds, at once: the first are verified (held at their keys), the next wait, the last is refused.
    const answers = Array.from({ length: line + 1 }, (_, i) => send(fake, `line${i}`));
    const answered = () => events.filter((event) => event.startsWith('answer line'));
    await eventually('an activity answered', () => answered().length > 0, federationWaitMs);
    assert.match(answered().join(', '), /^answer line\d+ 429$/, 'the first answer is the refusal past the line');
    assert.equal((await send(other, 'olga')).status, 202, 'another instance is verified while the line is full');
    assert.equal(answered().length, 1, 'the line still waits');
    keys.releaseAll();
    const all = await Promise.all(answers);
    assert.deepEqual(all.map((answer) => answer.status).sort(), [...Array<number>(line).fill(202), 429]);
    const refused = all.find((answer) => answer.status === 429)!;
    assert.equal(JSON.parse(refused.body).error.code, 'rate.limited');
    assert.equal(refused.headers.get('retry-after'), String(inboxPace.busyRetrySeconds));
  });
});

test('the pace docs/API.md writes is the one lib/federation/inbox-pace.ts keeps', () => {
  const api = readFileSync(new URL('../../docs/API.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const { holdMs, heldPerInstance, heldInAll, verifyingPerInstance, verifyingInAll } = inboxPace;
  const { waitingPerInstance, waitingInAll, busyRetrySeconds } = inboxPace;
  assert.equal(holdMs, 1000, 'the docs say „one second“');
  for (const figures of [
    'is held one second before it goes',
    `At most ${heldPerInstance} are held at once per instance and ${heldInAll.toLocaleString('en')} in all`,
    `at most ${verifyingPerInstance} of one instance's activities are verified at once, and ${verifyingInAll} in all`,
    `At most ${waitingPerInstance} of one instance's activities wait for a turn, and ${waitingInAll} in all`,
    `\`Retry-After: ${busyRetrySeconds}\``,
  ])
    assert.ok(api.includes(figures), figures);
});
