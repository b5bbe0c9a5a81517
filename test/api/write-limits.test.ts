import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { writeLimitRules } from '../../lib/limits/write-limits.ts';
import {
  assertError,
  day,
  imageFixture,
  member,
  post,
  quickHashes,
  useBoard,
  visitor,
  type Answer,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/** docs/API.md "Rate limits": the write limits per account and per address, the new-account brakes, the duplicate rule. */

function assertLimited(answer: Answer, note: string): number {
  assertError(answer, 429, 'rate.limited', { note, exact: true });
  const wait = Number(answer.headers.get('retry-after'));
  assert.ok(wait >= 1, `${note}: Retry-After ${answer.headers.get('retry-after')}`);
  return wait;
}

/** Sends `send` until it is refused; returns how many passed. Stops after `max`. */
async function passesUntilRefused(
  send: (i: number) => Promise<Answer>,
  max: number,
): Promise<{ passed: number; refused: Answer | undefined }> {
  for (let i = 0; i < max; i++) {
    const answer = await send(i);
    if (answer.status === 429) return { passed: i, refused: answer };
  }
  return { passed: max, refused: undefined };
}

/** Noon (UTC) of the day after tomorrow: address windows end at midnight, so a test near midnight would see them start over. */
function moveToNoon(board: TestBoard): void {
  board.clock.set((Math.floor(board.clock.now() / day) + 2) * day + day / 2);
}

const perMinute = (group: keyof typeof writeLimitRules, who: 'account' | 'address') =>
  (
    writeLimitRules[group] as {
      account?: readonly (readonly [number, number])[];
      address: readonly (readonly [number, number])[];
    }
  )[who]![0]![0];

describe('write limits of an established account (older than a day)', () => {
  const t = useBoard({ members: ['Olga', 'Paul'] });
  before(() => t.board.clock.advance(day + 1));

  test('the 7th entry in a minute answers 429 rate.limited with Retry-After; a refused one does not count, and the next minute works', async () => {
    const olga = t.members.Olga;
    const { passed, refused } = await passesUntilRefused(
      (i) => olga.post('/api/entry/create', { content: `Beitrag Nummer ${i} von Olga` }),
      20,
    );
    assert.equal(passed, perMinute('create', 'account'));
    const wait = assertLimited(refused!, 'the 7th create');
    assert.ok(wait <= 60);
    assertLimited(await olga.post('/api/entry/create', { content: 'noch einer' }), 'still refused');
    t.board.clock.advance(wait);
    assert.equal((await olga.post('/api/entry/create', { content: 'nach der Pause' })).status, 201);
  });

  test('each write group holds an account to its minute limit (vote, edit, delete, bump, rename, mute)', async () => {
    const paul = t.members.Paul;
    const pid = await post(paul, 'Paul stimmt ab');
    const cases: [keyof typeof writeLimitRules, (i: number) => Promise<Answer>][] = [
      ['vote', () => paul.post(`/api/entry/${pid}/vote`, { mode: 'yes' })],
      ['edit', (i) => paul.post(`/api/entry/${pid}/edit`, { content: `Fassung ${i}` })],
      ['delete', () => paul.post('/api/entry/999999/delete')], // a 404 has passed every check before: it counts
      ['bump', () => paul.post('/api/entry/999999/bump')],
      ['rename', (i) => paul.post('/api/user/rename', { user: `Paul ${i % 2 ? 'B' : 'A'}` })],
      ['mute', (i) => paul.post(i % 2 ? '/api/user/unmute' : '/api/user/mute', { user: 'Olga' })], // one group for both
    ];
    for (const [group, send] of cases) {
      const { passed, refused } = await passesUntilRefused(send, 100);
      assert.equal(passed, perMinute(group, 'account'), group);
      assertLimited(refused!, group);
    }
  });

  test('the write limit comes right after the session: no session answers 401 and counts nothing; over the limit, even a malformed pid answers 429', async () => {
    const anonymous = visitor(t.board);
    for (let i = 0; i < 30; i++)
      assertError(await anonymous.post('/api/entry/create', { content: 'ohne Konto' }), 401, 'auth.required');
    t.board.clock.advance(3600);
    const olga = t.members.Olga;
    for (let i = 0; i < perMinute('create', 'account'); i++)
      assert.equal((await olga.post('/api/entry/create', { content: `Runde zwei, ${i}` })).status, 201);
    assertLimited(
      await olga.post('/api/entry/create', { reply_to: 'x' }),
      'over the limit, a malformed field is not even read',
    );
  });
});

describe('write limits per address', () => {
  // The surge gate (docs/API.md "The surge gate") would hold the 31st registration of the hour
  // board-wide; this suite is about the per-address limits, so the gate is off here.
  // 60 registrations: hashed at quickHashes' cost, as the count is what this suite tests.
  const t = useBoard({ env: { BOARD_REGISTRATION_SURGE: '0' }, start: { passwords: quickHashes } });

  test('many accounts from one address share its limit: the 19th entry in a minute is refused', async () => {
    const ip = '203.0.113.50';
    const accounts: Client[] = [];
    for (const name of ['Ada', 'Ben', 'Cem', 'Dan', 'Eva']) accounts.push(await member(t.board, name, ip));
    moveToNoon(t.board);
    let created = 0;
    let refused: Answer | undefined;
    for (let round = 0; round < 6 && !refused; round++) {
      for (const [k, client] of accounts.entries()) {
        const answer = await client.post('/api/entry/create', {
          content: `Adresse teilen, Runde ${round}, Konto ${k}`,
        });
        if (answer.status === 429) {
          refused = answer;
          break;
        }
        assert.equal(answer.status, 201, answer.text);
        created++;
      }
    }
    assert.equal(created, perMinute('create', 'address'));
    assertLimited(refused!, 'the address is full');
    const elsewhere = await member(t.board, 'Fay');
    t.board.clock.advance(day + 1);
    assert.equal(
      (await elsewhere.post('/api/entry/create', { content: 'von woanders' })).status,
      201,
      'another address is not held',
    );
  });

  test('registration: at most 50 a day per address (besides 20 a minute)', async () => {
    const ip = '203.0.113.77';
    moveToNoon(t.board);
    let created = 0;
    for (let i = 0; i < 60; i++) {
      if (i > 0 && i % 20 === 0) t.board.clock.advance(61); // SPEC's 20 a minute is another limit
      const answer = await t.board
        .client({ ip })
        .post('/api/auth/newuser', { user: `Neu ${i}`, pass1: 'ein langes Passwort', pass2: 'ein langes Passwort' });
      if (answer.status === 429) {
        assertLimited(answer, 'registration number 51');
        break;
      }
      assert.equal(answer.status, 201, answer.text);
      created++;
    }
    assert.equal(created, 50);
  });
});

describe('new accounts (younger than 24 hours)', () => {
  // The board's first account starts trusted (docs/API.md "Trust levels"): Nina and Nora come after it.
  const t = useBoard({ users: ['Betreiberin'], members: ['Nina', 'Nora'] });

  test('create at a third of the account limit', async () => {
    const { passed, refused } = await passesUntilRefused(
      (i) => t.members.Nina.post('/api/entry/create', { content: `Neu hier, Nummer ${i}` }),
      20,
    );
    assert.equal(passed, Math.round(perMinute('create', 'account') / 3));
    assertLimited(refused!, 'a new account');
  });

  test('no link and no image in the first 10 minutes: 429 rate.new_account with Retry-After and when it will work', async () => {
    const nora = t.members.Nora;
    const pid = await post(nora, 'nur Text geht');
    const link = await nora.post('/api/entry/create', { content: 'Schaut mal: https://example.org/' });
    assertError(link, 429, 'rate.new_account', { exact: true });
    assert.ok(Number(link.headers.get('retry-after')) > 0 && Number(link.headers.get('retry-after')) <= 600);
    assert.match(link.body.error.message, /in (\d+ Minuten|einer Minute)/);
    t.board.clock.advance(61); // a refused entry counted against the create limit (a later check refused it)
    const image = await nora.postMultipart('/api/entry/create', { content: '' }, [
      { name: 'file', filename: 'a.png', data: await imageFixture({ format: 'png' }) },
    ]);
    assertError(image, 429, 'rate.new_account');
    assertError(
      await nora.post(`/api/entry/${pid}/edit`, { content: 'jetzt mit https://example.org/' }),
      429,
      'rate.new_account',
    );
    t.board.clock.advance(600);
    assert.equal(
      (await nora.post(`/api/entry/${pid}/edit`, { content: 'jetzt mit https://example.org/' })).status,
      200,
    );
    assert.equal(
      (await nora.post('/api/entry/create', { content: 'und noch ein Link https://example.org/x' })).status,
      201,
    );
  });
});

describe('BOARD_NEW_ACCOUNT_HOURS=0', () => {
  // After the board's first account, which starts trusted and would pass whatever the setting.
  const t = useBoard({ env: { BOARD_NEW_ACCOUNT_HOURS: '0' }, users: ['Betreiberin'], members: ['Ines'] });

  test('no account counts as new: the full create limit, and links at once', async () => {
    const { passed } = await passesUntilRefused(
      (i) => t.members.Ines.post('/api/entry/create', { content: `Link Nummer ${i}: https://example.org/${i}` }),
      20,
    );
    assert.equal(passed, perMinute('create', 'account'));
  });
});

describe('the same text twice', () => {
  const t = useBoard({ members: ['Dora'] });
  before(() => t.board.clock.advance(day + 1));

  test('the same text (trimmed, any letter case) within 10 minutes answers 409 entry.duplicate; short texts and other accounts are fine', async () => {
    const dora = t.members.Dora;
    const text = 'Kauft billige Uhren bei uns!';
    assert.equal((await dora.post('/api/entry/create', { content: text })).status, 201);
    assertError(await dora.post('/api/entry/create', { content: `  ${text.toUpperCase()} ` }), 409, 'entry.duplicate', {
      exact: true,
      field: 'content',
    });
    assert.equal((await dora.post('/api/entry/create', { content: 'Danke!' })).status, 201);
    assert.equal(
      (await dora.post('/api/entry/create', { content: 'Danke!' })).status,
      201,
      'under 10 characters: exempt',
    );
    const other = await member(t.board, 'Otto');
    t.board.clock.advance(day + 1);
    assert.equal(
      (await other.post('/api/entry/create', { content: text })).status,
      201,
      'another account may say the same',
    );
    assert.equal(
      (await dora.post('/api/entry/create', { content: text })).status,
      201,
      'ten minutes later (the day moved) it is new again',
    );
  });

  test('a deleted entry does not count, and image-only entries are exempt', async () => {
    t.board.clock.advance(3600);
    const dora = t.members.Dora;
    const pid = await post(dora, 'Ein Satz, der gelöscht wird.');
    assert.equal((await dora.post(`/api/entry/${pid}/delete`)).status, 200);
    assert.equal((await dora.post('/api/entry/create', { content: 'Ein Satz, der gelöscht wird.' })).status, 201);
    const image = await imageFixture({ format: 'png' });
    for (let i = 0; i < 2; i++) {
      const answer = await dora.postMultipart('/api/entry/create', { content: '' }, [
        { name: 'file', filename: 'a.png', data: image },
      ]);
      assert.equal(answer.status, 201, answer.text);
    }
  });
});

describe('BOARD_LIMITS', () => {
  describe('0 turns every write limit and brake off', () => {
    const t = useBoard({ env: { BOARD_LIMITS: '0' }, members: ['Lena'] });

    test('a new account posts 40 entries, links and the same text again at once', async () => {
      const lena = t.members.Lena;
      for (let i = 0; i < 40; i++)
        assert.equal(
          (await lena.post('/api/entry/create', { content: `Lasttest https://example.org/${i}` })).status,
          201,
        );
      assert.equal((await lena.post('/api/entry/create', { content: 'Lasttest https://example.org/0' })).status, 201);
    });
  });

  describe('0.5 halves every limit', () => {
    const t = useBoard({ env: { BOARD_LIMITS: '0.5' }, members: ['Hans'] });
    before(() => t.board.clock.advance(day + 1));

    test('an established account creates 3 a minute', async () => {
      const { passed } = await passesUntilRefused(
        (i) => t.members.Hans.post('/api/entry/create', { content: `halbe Grenze ${i}` }),
        20,
      );
      assert.equal(passed, 3);
    });
  });
});
