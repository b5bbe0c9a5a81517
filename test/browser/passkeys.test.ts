import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { password, uidOf } from '../helpers.ts';
import { freePort } from '../helpers/ports.ts';
import {
  assertCleanConsole,
  newRecordedContext,
  skipWithoutChromium,
  useBrowserBoard,
  type Recorder,
} from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('passkey browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Issue 34: passkeys in Debian's Chromium with a virtual authenticator (CDP WebAuthn domain):
 * register one in the settings, log out, sign in with it without typing a name, delete it; a
 * second browser profile with an authenticator of its own cannot use the first one's passkey.
 * WebAuthn runs only on a secure origin with a domain as RP ID: the board is reached as
 * http://localhost:<port>, which BOARD_ORIGIN names.
 */
describe('passkeys in a real browser', { skip: skipWithoutChromium }, () => {
  let port = 0;
  const t = useBrowserBoard({
    prepare: async () => {
      port = await freePort();
    },
    env: () => ({ BOARD_ORIGIN: `http://localhost:${port}` }),
    start: () => ({ port }),
    members: ['Anna', 'Bert'],
  });
  const origin = () => `http://localhost:${port}`;
  const recorders: Recorder[] = [];

  /** A fresh profile (its own cookies) with a virtual platform authenticator that verifies the user. */
  async function profile(): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string }> {
    const { context, recorder } = await newRecordedContext(t.browser);
    recorders.push(recorder);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    return { context, page, cdp, authenticatorId };
  }

  async function open(page: Page, path: string): Promise<void> {
    await page.goto(origin() + path);
    await page.locator('html[data-ready="true"]').waitFor();
  }

  test('register a passkey in the settings, log out, sign in with it without a name, delete it; another profile cannot use it', async () => {
    const first = await profile();
    const { page } = first;
    await first.context.addCookies([{ name: 'session', value: t.members.Anna.cookie, url: origin() }]);

    await open(page, '/settings');
    const add = page.locator('form.passkey-add');
    await add.getByLabel('Name des Passkeys').fill('Laptop');
    await add.getByLabel('Dein Passwort').fill(password);
    await add.getByRole('button', { name: 'Passkey hinzufügen' }).click();
    const item = page.locator('.passkey-item').filter({ hasText: 'Laptop' });
    await item.waitFor();
    await item.filter({ hasText: 'noch nie' }).waitFor();
    const { credentials } = await first.cdp.send('WebAuthn.getCredentials', { authenticatorId: first.authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0]!.isResidentCredential, true, 'a discoverable credential');
    assert.equal(credentials[0]!.rpId, 'localhost');
    const { db } = t.board.app.services;
    const stored = db.one<{ credential_id: string; name: string }>(
      'SELECT credential_id, name FROM passkeys WHERE uid = ?',
      uidOf(t.board, 'Anna'),
    );
    const credentialId = Buffer.from(credentials[0]!.credentialId, 'base64').toString('base64url'); // CDP says base64
    assert.deepEqual(stored, { credential_id: credentialId, name: 'Laptop' });

    await page.locator('#nav').getByRole('button', { name: 'Abmelden' }).click();
    await page.locator('#nav').getByRole('link', { name: 'Anmelden' }).waitFor();
    await open(page, '/login');
    await page.getByRole('button', { name: 'Mit Passkey anmelden' }).click();
    await page.locator('#nav').getByRole('link', { name: 'Einstellungen' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    await page.locator('#nav').filter({ hasText: 'Anna' }).waitFor();
    const signedIn = db.one<{ last_used: number }>('SELECT last_used FROM passkeys WHERE name = ?', 'Laptop');
    assert.ok(signedIn!.last_used > 0, 'the sign-in is recorded on the passkey');

    // A second profile: its own (empty) authenticator, no session. The first one's passkey is not there to use.
    const second = await profile();
    await open(second.page, '/login');
    await second.page.getByRole('button', { name: 'Mit Passkey anmelden' }).click();
    await second.page
      .locator('.passkey-login .form-message')
      .filter({ hasText: 'Passkey wurde nicht bestätigt' })
      .waitFor();
    await second.page.locator('#nav').getByRole('link', { name: 'Anmelden' }).waitFor();
    assert.equal((await second.context.cookies(origin())).filter((c) => c.name === 'session').length, 0);

    // Signed in with the passkey, without the password: the passkey confirms new recovery codes.
    await open(page, '/settings');
    const recovery = page.locator('section[aria-labelledby="recovery-heading"]');
    await recovery.getByRole('button', { name: 'Mit einem Passkey bestätigen' }).click();
    await recovery.locator('ol.recovery-codes li').nth(9).waitFor();
    assert.equal(
      db.one<{ n: number }>('SELECT count(*) AS n FROM recovery_codes WHERE uid = ?', uidOf(t.board, 'Anna'))!.n,
      10,
    );

    await item.getByText('Löschen …').click(); // unfolds the step
    await item.getByLabel('Dein Passwort').fill(password);
    await item.getByRole('button', { name: 'Passkey „Laptop“ löschen' }).click();
    await page.locator('.passkeys-empty').filter({ hasText: 'noch keinen Passkey' }).waitFor({ state: 'visible' });
    assert.equal(db.one<{ n: number }>('SELECT count(*) AS n FROM passkeys')!.n, 0);

    // Deleted on the board: the authenticator still holds it, and signing in with it now fails.
    await page.locator('#nav').getByRole('button', { name: 'Abmelden' }).click();
    await page.locator('#nav').getByRole('link', { name: 'Anmelden' }).waitFor();
    await open(page, '/login');
    await page.getByRole('button', { name: 'Mit Passkey anmelden' }).click();
    await page.locator('.passkey-login .form-message').filter({ hasText: 'Anmeldung mit dem Passkey' }).waitFor();
    await first.context.close();
    await second.context.close();
  });

  test('recovery codes in the settings, then a new password with one on the recover page', async () => {
    const { context, page } = await profile();
    await context.addCookies([{ name: 'session', value: t.members.Bert.cookie, url: origin() }]);
    await open(page, '/settings');
    const section = page.locator('section[aria-labelledby="recovery-heading"]');
    await section.filter({ hasText: 'noch keine Wiederherstellungscodes' }).waitFor();
    await section.getByLabel('Dein Passwort').fill(password);
    await section.getByRole('button', { name: 'Neue Codes erstellen' }).click();
    const codes = section.locator('ol.recovery-codes li');
    await codes.nth(9).waitFor();
    assert.equal(await codes.count(), 10);
    const code = (await codes.first().textContent())!;
    await section.filter({ hasText: 'Noch 10 Codes übrig' }).waitFor();

    await page.locator('#nav').getByRole('button', { name: 'Abmelden' }).click();
    await page.locator('#nav').getByRole('link', { name: 'Anmelden' }).waitFor();
    await open(page, '/login');
    await page.locator('main .forgotten').getByRole('link', { name: 'Mit Wiederherstellungscode anmelden' }).click();
    await page.getByRole('heading', { name: 'Mit Wiederherstellungscode anmelden' }).waitFor();
    await page.getByLabel('Benutzername').fill('Bert');
    await page.getByLabel('Wiederherstellungscode').fill(code);
    await page.getByLabel('Neues Passwort', { exact: true }).fill('ein neues Passwort');
    await page.getByLabel('Neues Passwort wiederholen').fill('ein neues Passwort');
    await page.getByRole('button', { name: 'Passwort speichern' }).click();
    await page.locator('#nav').getByRole('link', { name: 'Einstellungen' }).waitFor();
    await open(page, '/settings');
    await page
      .locator('section[aria-labelledby="recovery-heading"]')
      .filter({ hasText: 'Noch 9 Codes übrig' })
      .waitFor();
    await context.close();
  });

  test("no request left the board's origin and the CSP reported nothing", () => {
    assert.ok(recorders.length > 0);
    for (const recorder of recorders) {
      const foreign = recorder.requests.filter((url) => !url.startsWith(`${origin()}/`) && !url.startsWith('data:'));
      assert.deepEqual(foreign, [], 'requests that left the board');
      assertCleanConsole(recorder);
    }
  });
});
