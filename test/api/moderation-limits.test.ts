import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createEntry } from '../../lib/entries/entries.ts';
import { assertError, entryRow, runAdminInProcess, uidOf, useBoard, type Answer, type TestBoard } from '../helpers.ts';

/**
 * docs/API.md "Rate limits": the moderation's actions are held to write limits per moderator at
 * the default BOARD_LIMITS (modEntry: remove, restore, dismiss; modAccount: ban, unban, avatar
 * remove), scaled by BOARD_LIMITS; board-admin is not held.
 */

/** Live entries of `author` written straight into the database: the create limits are not what this tests. */
function entriesOf(board: TestBoard, author: string, count: number): number[] {
  const uid = uidOf(board, author);
  return Array.from(
    { length: count },
    (_, i) =>
      createEntry(
        board.app.services.db,
        { uid, content: `Spam ${i}`, filepath: '', replyTo: 0, link: '' },
        board.clock.now(),
      )!,
  );
}

/** The 429 of a moderation limit: rate.limited, Retry-After, and a message that names the limit. */
function assertModLimited(answer: Answer, retryAfter: number, message: string): void {
  assertError(answer, 429, 'rate.limited', { exact: true });
  assert.equal(answer.headers.get('retry-after'), String(retryAfter));
  assert.equal(answer.body.error.message, message);
}

const entryLimit = (perMinute: number, perHour: number, wait: string) =>
  `Zu viele Moderationsaktionen an Beiträgen (entfernen, wiederherstellen, Meldungen verwerfen): höchstens ${perMinute} pro Minute und ${perHour} pro Stunde. Bitte warte noch ${wait}.`;

describe('write limits of the moderation, at the default BOARD_LIMITS', () => {
  const t = useBoard({ members: ['Spam'], moderators: ['Mia', 'Moritz'] });

  test('a moderator removes 30 entries in a minute; the 31st, and a restore, answer 429 naming the limit; another moderator and the next minute go on', async () => {
    const pids = entriesOf(t.board, 'Spam', 33);
    for (const pid of pids.slice(0, 30))
      assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'Spam' })).status, 200);
    t.board.clock.advance(15);
    assertModLimited(
      await t.members.Mia.post(`/api/mod/entry/${pids[30]}/remove`, { reason: 'Spam' }),
      45,
      entryLimit(30, 500, '45 Sekunden'),
    );
    assert.equal(entryRow(t.board, pids[30]!)!.deleted, 0, 'the refused removal changed nothing');
    t.board.clock.advance(44);
    assertModLimited(
      await t.members.Mia.post(`/api/mod/entry/${pids[0]}/restore`),
      1,
      entryLimit(30, 500, 'eine Sekunde'),
    );
    assert.equal(entryRow(t.board, pids[0]!)!.removed, 1);
    assert.equal(
      (await t.members.Moritz.post(`/api/mod/entry/${pids[31]}/remove`, { reason: 'Spam' })).status,
      200,
      'per moderator',
    );
    t.board.clock.advance(1);
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pids[30]}/remove`, { reason: 'Spam' })).status, 200);
    assert.equal((await t.members.Mia.post(`/api/mod/entry/${pids[0]}/restore`)).status, 200);
  });

  test("ten bans and unbans in a minute; the 11th answers 429 naming the limit; a ban's purge counts as one", async () => {
    t.board.clock.advance(3600); // a new hour, away from the last test's removals
    entriesOf(t.board, 'Spam', 40);
    assert.equal((await t.members.Mia.post('/api/mod/user/Spam/ban', { reason: 'Spam', purge: '1' })).status, 200);
    for (let i = 1; i < 10; i++) {
      assert.equal(
        (await t.members.Mia.post(`/api/mod/user/Spam/${i % 2 ? 'unban' : 'ban'}`, { reason: 'Spam' })).status,
        200,
        `action ${i + 1}`,
      );
    }
    assertModLimited(
      await t.members.Mia.post('/api/mod/user/Spam/ban', { reason: 'Spam' }),
      60,
      'Zu viele Moderationsaktionen an Konten (sperren, entsperren, Avatar entfernen): höchstens 10 pro Minute und 100 pro Stunde. Bitte warte noch eine Minute.',
    );
    assertError(
      await t.members.Mia.post(`/api/mod/entry/${entriesOf(t.board, 'Moritz', 1)[0]}/dismiss`),
      404,
      'report.not_found',
      { note: 'the entry limit is another one' },
    );
  });

  test('board-admin is not held: when Mia is refused, it removes 40 entries and bans 12 times in that minute', async () => {
    t.board.clock.advance(3600);
    for (const pid of entriesOf(t.board, 'Spam', 30))
      assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'Spam' })).status, 200);
    const pids = entriesOf(t.board, 'Spam', 40);
    assertModLimited(
      await t.members.Mia.post(`/api/mod/entry/${pids[0]}/remove`, { reason: 'Spam' }),
      60,
      entryLimit(30, 500, 'eine Minute'),
    );
    const env = { BOARD_DATA: t.board.config.dataDir, BOARD_ORIGIN: t.board.config.origin };
    for (const pid of pids) {
      const run = await runAdminInProcess(['remove', String(pid), '--reason', 'Spam', '--quiet'], env);
      assert.equal(run.code, 0, run.stderr);
    }
    for (let i = 0; i < 12; i++) {
      const run = await runAdminInProcess(['ban', 'Spam', '--reason', 'Spam', '--quiet'], env);
      assert.equal(run.code, 0, run.stderr);
    }
    assert.ok(pids.every((pid) => entryRow(t.board, pid)!.removed === 1));
  });
});

describe("BOARD_LIMITS scales the moderation's limits", () => {
  const t = useBoard({ env: { BOARD_LIMITS: '0.5' }, members: ['Spam'], moderators: ['Mia'] });

  test('at 0.5 the 16th removal in a minute answers 429, and the message names the scaled numbers', async () => {
    const pids = entriesOf(t.board, 'Spam', 16);
    for (const pid of pids.slice(0, 15))
      assert.equal((await t.members.Mia.post(`/api/mod/entry/${pid}/remove`, { reason: 'Spam' })).status, 200);
    assertModLimited(
      await t.members.Mia.post(`/api/mod/entry/${pids[15]}/remove`, { reason: 'Spam' }),
      60,
      entryLimit(15, 250, 'eine Minute'),
    );
  });
});
