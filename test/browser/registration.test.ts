import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inviteLifetimeSeconds } from '../../lib/product.ts';
import { createInvite } from '../../lib/registration/invites.ts';
import { password } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('registration browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * The registration page and the moderators' queue in Debian's Chromium (docs/API.md
 * "Registration"): the page reads GET /api/auth/registration, shows the question, takes the invite
 * from /register#<token>, solves the proof of work in Web Workers of the board's own origin (the
 * suite's checks: no request leaves the board, no CSP complaint), and the application shows on /mod.
 */
describe('registration in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: { BOARD_POW: '1' }, moderators: ['Mia'] });

  test('in approval mode the page asks the question, solves the proof of work and says the application waits', async () => {
    await t.members.Mia.post('/api/mod/registration', { mode: 'approval' });
    const { page, recorder } = await t.newPage();
    await openBoard(page, t.board, '/register');
    const question = t.board.config.registrationQuestion;
    await page.getByLabel('Benutzername').fill('Browserin');
    await page.getByLabel('Passwort', { exact: true }).fill(password);
    await page.getByLabel('Passwort wiederholen').fill(password);
    await page.getByLabel(question).fill('Ich schreibe gern über Gärten und Bücher.');
    await page.getByRole('button', { name: 'Konto anlegen' }).click();
    await page.getByText('Dein Antrag ist eingegangen').waitFor();
    const asked = recorder.requests.map((url) => new URL(url).pathname);
    assert.ok(asked.includes('/api/auth/challenge') && asked.includes('/static/pow-worker.js'), asked.join(' '));
    const row = t.board.app.services.db.one<{ status: string }>(
      "SELECT status FROM users WHERE username = 'Browserin'",
    );
    assert.equal(row?.status, 'pending');
  });

  test('the moderator sees the application on /mod and approves it', async () => {
    const { page } = await t.newPage({ as: t.members.Mia });
    await openBoard(page, t.board, '/mod');
    const item = page.locator('li[data-username="Browserin"]');
    await item.getByText('Gärten und Bücher').waitFor();
    await item.getByRole('button', { name: 'Freischalten' }).click();
    await item.getByText('ist freigeschaltet').waitFor();
    const row = t.board.app.services.db.one<{ status: string }>(
      "SELECT status FROM users WHERE username = 'Browserin'",
    );
    assert.equal(row?.status, '');
  });

  test('/register#<token> fills in the invite, takes it out of the address bar, and the invite skips approval', async () => {
    const { db, clock } = t.board.app.services;
    const invite = createInvite(db, 0, inviteLifetimeSeconds, clock.now())!;
    const { page } = await t.newPage();
    await openBoard(page, t.board, `/register#${invite.token}`);
    assert.equal(await page.getByLabel('Einladung (falls du eine hast)').inputValue(), invite.token);
    assert.equal(new URL(page.url()).hash, '', 'the token left the address bar');
    await page.getByLabel('Benutzername').fill('Eingeladene');
    await page.getByLabel('Passwort', { exact: true }).fill(password);
    await page.getByLabel('Passwort wiederholen').fill(password);
    await page.getByRole('button', { name: 'Konto anlegen' }).click();
    await page.locator('#nav').getByRole('link', { name: 'Eingeladene' }).waitFor();
    // A level-0 account: the composer says what is locked before anyone types.
    await openBoard(page, t.board, '/');
    await page.getByRole('button', { name: 'Neues Thema schreiben' }).click();
    await page.getByText('Als neues Konto kannst du am Tag höchstens 2 Beiträge mit Links').waitFor();
  });
});
