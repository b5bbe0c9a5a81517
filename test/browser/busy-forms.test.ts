import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { password, visitor } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';
import { busyFirst } from '../helpers/busy.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('busy retry of the password forms', { skip: skipWithoutChromium }, () => {});

/**
 * The forms that hash a password outside the login (here the password change and the account's
 * deletion) answered 503 auth.busy with Retry-After: like the login, they say so once, wait as
 * told and try again by themselves (web/static/busy-retry.js whenNotBusy). The first answer is the
 * test's own (page.route); then the real board answers.
 */
describe('the password forms try again when the board is busy', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ members: ['Anna', 'Bert'] });

  /** Every text the page bar or a local status line shows, in order (nothing is timed). */
  async function recordAnnouncements(page: import('playwright-core').Page) {
    await page.evaluate(`(() => {
      const seen = (window.boardAnnounced = []);
      const note = () => {
        for (const el of document.querySelectorAll('#status, .local-status')) {
          if (el.textContent && !seen.includes(el.textContent)) seen.push(el.textContent);
        }
      };
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
  }

  test('a password change answered busy once waits, tries again and changes the password', async () => {
    const { page } = await t.newPage({ as: t.members.Anna });
    await openBoard(page, t.board, '/settings');
    const sent = await busyFirst(page, '**/api/user/password', 1, '1');
    await recordAnnouncements(page);
    await page.getByLabel('Aktuelles Passwort').fill(password);
    await page.getByLabel('Neues Passwort', { exact: true }).fill('ein neues Passwort 1');
    await page.getByLabel('Neues Passwort wiederholen').fill('ein neues Passwort 1');
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    await page.getByText('Dein Passwort ist geändert.', { exact: false }).first().waitFor();
    assert.equal(sent.length, 2, 'one busy answer, one real');
    const announced = (await page.evaluate('window.boardAnnounced')) as string[];
    assert.ok(announced.includes('Viel Andrang – neuer Versuch in 1 s'), announced.join(' | '));
    assert.equal(await page.locator('.form-message').first().textContent(), '', 'no error shown');
    const login = await visitor(t.board).post('/api/auth/login', { user: 'Anna', pass: 'ein neues Passwort 1' });
    assert.equal(login.status, 200, 'the new password works');
  });

  test('an account deletion answered busy every time: three tries, then the server message, nothing deleted', async () => {
    const { page } = await t.newPage({ as: t.members.Bert });
    await openBoard(page, t.board, '/settings');
    const sent = await busyFirst(page, '**/api/user/delete', 1000, '1');
    await page
      .locator('form', { has: page.getByRole('button', { name: 'Konto endgültig löschen' }) })
      .getByLabel('Passwort zur Bestätigung')
      .fill(password);
    await page.getByRole('button', { name: 'Konto endgültig löschen' }).click();
    await page.locator('.form-message').filter({ hasText: 'Der Server ist gerade ausgelastet.' }).waitFor();
    assert.equal(sent.length, 3, 'at most three tries');
    const login = await visitor(t.board).post('/api/auth/login', { user: 'Bert', pass: password });
    assert.equal(login.status, 200, 'the account is still there');
  });
});
