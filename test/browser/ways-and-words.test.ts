import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { password, runAdminInProcess } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('ways and words browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Where the pages lead and what they say, in Debian's Chromium: ?weiter= stays on the board
 * (web/static/next-path.js), and the words of the cards, the moderation pages and the forms.
 */
describe('ways and words in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ members: ['Anna'], moderators: ['Mia'] });
  const admin = (args: string[]) =>
    runAdminInProcess(args, { BOARD_DATA: t.board.config.dataDir, BOARD_ORIGIN: t.board.config.origin });

  test('?weiter= with "/.//host" ends on the board: the "Weiter" link when logged in, and the login itself', async () => {
    const offBoard = `/login?weiter=${encodeURIComponent('/.//127.0.0.1:18091/pwned')}`;
    const { page, context } = await t.newPage();
    await openBoard(page, t.board, offBoard);
    await page.getByLabel('Benutzername').fill('Anna');
    await page.getByLabel('Passwort').fill(password);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.getByRole('navigation', { name: 'Hauptnavigation' }).getByRole('link', { name: 'Anna' }).waitFor();
    assert.equal(page.url(), `${t.board.url}/`);
    for (const next of [
      '/.//127.0.0.1:18091/pwned',
      '/%2F/127.0.0.1',
      '/\\127.0.0.1',
      '//127.0.0.1',
      'https://127.0.0.1/',
    ]) {
      await openBoard(page, t.board, `/login?weiter=${encodeURIComponent(next)}`);
      assert.equal(await page.getByRole('link', { name: 'Weiter' }).getAttribute('href'), '/', next);
    }
    await openBoard(page, t.board, `/login?weiter=${encodeURIComponent('/stats')}`);
    assert.equal(await page.getByRole('link', { name: 'Weiter' }).getAttribute('href'), '/stats');
    await context.close();
  });

  test("/modlog says a registration change with the mode's German name, no raw mode; /mod says who set it at the command line", async () => {
    assert.equal((await admin(['registration', 'approval'])).code, 0);
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'invite' })).status, 200);
    const { page, context } = await t.newPage({ as: t.members.Anna });
    await openBoard(page, t.board, '/modlog');
    const rows = page.locator('main .modlog-row');
    await rows.first().filter({ hasText: 'Registrierung auf „nur mit Einladung“ umgestellt' }).waitFor();
    assert.match((await rows.nth(1).textContent()) ?? '', /^Registrierung auf „mit Freischaltung“ umgestellt/);
    assert.equal(await page.locator('main .modlog-reason').count(), 0, 'no reason but the mode');
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /\b(registration|approval|invite)\b/);
    await context.close();

    assert.equal((await admin(['registration', 'closed'])).code, 0);
    const mod = await t.newPage({ as: t.members.Mia });
    await openBoard(mod.page, t.board, '/mod');
    await mod.page.getByText('Registrierung: geschlossen (gesetzt von: Betrieb (Kommandozeile)).').waitFor();
    await mod.context.close();
  });

  t.testCleanRecords();
});
