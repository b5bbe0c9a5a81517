import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { writeLimitRules } from '../../lib/limits/write-limits.ts';
import { assertError, type Answer, type Client, useBoard } from '../helpers.ts';

/**
 * docs/API.md "Trust levels" and docs/OPERATIONS.md "Settings": BOARD_NEW_ACCOUNT_HOURS keeps its
 * meaning beside the trust levels. An account younger than it creates at a third of the account
 * limits; once older it creates at the full limits even while it is still at level 0, whose caps on
 * links and images stay. `0`: no account counts as new, and the level's link and image caps are
 * off with the new-account rules; level 0 still cannot invite. Each account here comes after the board's first, which starts trusted.
 */

const createsPerMinute = writeLimitRules.create.account[0]![0];

/** Creates until one is refused (at most `max`): how many passed, and the refusal. */
async function createsUntilRefused(client: Client, label: string, max = 20) {
  for (let i = 0; i < max; i++) {
    const answer: Answer = await client.post('/api/entry/create', { content: `${label} Nummer ${i}` });
    if (answer.status === 429) return { passed: i, refused: answer };
    assert.equal(answer.status, 201, answer.text);
  }
  return { passed: max, refused: undefined };
}

const withLink = (client: Client, i: number) =>
  client.post('/api/entry/create', { content: `Ein Link Nummer ${i}: https://example.org/${i}` });

describe('BOARD_NEW_ACCOUNT_HOURS=1', () => {
  const t = useBoard({ env: { BOARD_NEW_ACCOUNT_HOURS: '1' }, users: ['Betreiberin'], members: ['Lena'] });

  test('a third of the create limit for the first hour, the full limit after it, while the level-0 caps stay', async () => {
    const lena = t.members.Lena;
    const young = await createsUntilRefused(lena, 'In der ersten Stunde');
    assert.equal(young.passed, Math.round(createsPerMinute / 3));
    assertError(young.refused!, 429, 'rate.limited', { exact: true });
    assert.match(young.refused!.body.error.message, /für neue Konten/);

    t.board.clock.advance(3600);
    assert.equal((await lena.get('/api/user/info')).body.trust_level, 0, 'an hour old is still level 0');
    const older = await createsUntilRefused(lena, 'Nach einer Stunde');
    assert.equal(older.passed, createsPerMinute, 'older than BOARD_NEW_ACCOUNT_HOURS: the full create limit');

    t.board.clock.advance(61);
    assert.equal((await withLink(lena, 1)).status, 201);
    assert.equal((await withLink(lena, 2)).status, 201);
    assertError(await withLink(lena, 3), 429, 'rate.new_account', { exact: true });
  });
});

describe('BOARD_NEW_ACCOUNT_HOURS=0', () => {
  const t = useBoard({ env: { BOARD_NEW_ACCOUNT_HOURS: '0' }, users: ['Betreiberin'], members: ['Ines'] });

  test('no account counts as new: a level-0 account gets the full create limit, links at once and no link caps, but no invites', async () => {
    const ines = t.members.Ines;
    assert.equal((await ines.get('/api/user/info')).body.trust_level, 0, 'the level is still computed and shown');
    for (let i = 1; i <= 3; i++) assert.equal((await withLink(ines, i)).status, 201, `link entry ${i}`);
    t.board.clock.advance(61);
    const { passed } = await createsUntilRefused(ines, 'Ohne Bremse');
    assert.equal(passed, createsPerMinute);
    assertError(await ines.post('/api/user/invites', {}), 403, 'trust.required', {
      note: 'level 0 still cannot invite',
    });
  });
});
