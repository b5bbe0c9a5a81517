import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { password } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('ways and words browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Where the pages lead and what they say, in Debian's Chromium: ?weiter= stays on the board
 * (web/static/next-path.js), and the words of the cards, the moderation pages and the forms.
 */
describe('ways and words in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ members: ['Anna'] });

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

  t.testCleanRecords();
});
