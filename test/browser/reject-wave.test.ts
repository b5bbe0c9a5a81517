import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { password, visitor } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('rejecting the shown applications', { skip: skipWithoutChromium }, () => {});

/**
 * The door on /mod with several applications waiting (docs/API.md "POST
 * /api/mod/applications/reject"): "Alle N ablehnen" rejects the applications shown, with one reason
 * for all, and the section is drawn again with the queue empty.
 */
describe('a moderator rejects the shown applications in one step', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ moderators: ['Mia'] });
  const names = ['Welle Eins', 'Welle Zwei', 'Welle Drei'];

  test('"Alle 3 ablehnen" rejects them with the reason, and the queue shows none left', async () => {
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'approval' })).status, 200);
    for (const user of names) {
      const sent = await visitor(t.board).post('/api/auth/newuser', {
        user,
        pass1: password,
        pass2: password,
        application: 'Ich möchte hier gern mitschreiben und mitlesen.',
      });
      assert.equal(sent.status, 202, sent.text);
      t.board.clock.advance(1);
    }
    const { page } = await t.newPage({ as: t.members.Mia });
    await openBoard(page, t.board, '/mod');
    const door = page.locator('section.door');
    await door.getByRole('heading', { name: 'Anträge (3)' }).waitFor();
    await door.getByLabel('Grund für alle (freiwillig)').fill('Ansturm von Bots');
    await door.getByRole('button', { name: 'Alle 3 ablehnen' }).click();
    await page.locator('section.door').getByText('Keine Anträge offen.').waitFor();
    await page.getByText('3 Anträge abgelehnt.').waitFor();
    const rows = t.board.app.services.db.all<{ status: string; reject_reason: string }>(
      `SELECT status, reject_reason FROM users WHERE username IN (${names.map(() => '?').join(',')})`,
      ...names,
    );
    assert.deepEqual(
      rows.map((r) => [r.status, r.reject_reason]),
      names.map(() => ['rejected', 'Ansturm von Bots']),
    );
  });
});
