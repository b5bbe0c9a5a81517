import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { inboxLimitRules, inboxShareText } from '../../lib/federation/inbox-door.ts';
import { windowsText } from '../../lib/limits/write-limits.ts';
import type { TestBoard } from '../helpers.ts';
import type { FakeInstance } from '../helpers/fake-instance.ts';
import { startBoardAmongInstances } from '../helpers/federation.ts';

/**
 * docs/API.md "What comes in", step 5, at the board's DEFAULT limits (no BOARD_LIMITS): one actor's
 * share of verified activities is used up by its 60th in a minute and the 61st is refused 429, on
 * the test's clock; and the figures the docs write are the code's (lib/federation/inbox-door.ts).
 */

const actorPerMinute = inboxLimitRules.actor.windows[0]![0];

describe('the inbox rates at the default limits', () => {
  let board: TestBoard;
  let fake: FakeInstance;

  before(async () => {
    let fakes: FakeInstance[];
    ({ board, fakes } = await startBoardAmongInstances({ instances: [{}] }));
    [fake] = fakes as [FakeInstance];
    assert.equal(board.config.limitsFactor, 1, 'BOARD_LIMITS as shipped');
  });
  after(async () => {
    await board?.close();
    await fake?.close();
  });

  const like = (name: string) => fake.likeOf(name, `${board.config.origin}/e/1`);
  const send = (name: string) => fake.send(`${board.url}/ap/inbox`, like(name));

  test(`an actor's ${actorPerMinute + 1}st verified activity in a minute is refused 429; a minute later it is taken`, async () => {
    assert.equal(actorPerMinute, 60, 'the share docs/API.md names');
    for (let i = 1; i <= actorPerMinute; i++) assert.equal((await send('vera')).status, 202, `activity ${i}`);
    const refused = await send('vera');
    assert.equal(refused.status, 429);
    const error = JSON.parse(refused.body).error;
    assert.equal(error.code, 'rate.limited');
    assert.equal(
      error.message.split('.')[0],
      `Zu viele Aktivitäten von diesem Konto: höchstens ${windowsText(inboxLimitRules.actor.windows, 1)}`,
    );
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal((await send('walter')).status, 202, 'another actor of the same server');
    board.clock.advance(retryAfter);
    assert.equal((await send('vera')).status, 202, 'after Retry-After');
  });
});

test('the shares docs/API.md and docs/OPERATIONS.md write are the ones lib/federation/inbox-door.ts counts', () => {
  const oneLine = (file: string) =>
    readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const [instance, actor] = [inboxShareText('instance'), inboxShareText('actor')];
  assert.equal(instance, '300 a minute and 3,000 an hour');
  assert.ok(
    oneLine('API.md').includes(`verified activities per instance (${instance}) and per actor (${actor}), scaled by`),
    'docs/API.md "What comes in" step 5',
  );
  assert.ok(
    oneLine('API.md').includes(
      `„Zu viele Aktivitäten von diesem Server: höchstens ${windowsText(inboxLimitRules.instance.windows, 1)}. …“`,
    ),
    'the message docs/API.md quotes',
  );
  assert.ok(
    oneLine('OPERATIONS.md').includes(`(per instance ${instance}, per actor ${actor}, times \`BOARD_LIMITS\`;`),
    'docs/OPERATIONS.md "What comes in"',
  );
});
