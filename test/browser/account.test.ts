import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { limitsOff, password, visitor, type Client } from '../helpers.ts';
import {
  holdRequests,
  keepScreenshot,
  openBoard,
  screenshotDir,
  skipWithoutChromium,
  useBrowserBoard,
} from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('account browser tests', { skip: skipWithoutChromium }, () => {});

const firefoxOnLinux = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const safariOnIphone =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/**
 * The settings page of issue 16 (docs/API.md "Account self-service") and the mutes in the feed and
 * threads, in Debian's Chromium: password, sessions with a readable device (finding 8), export, mutes.
 */
describe('account self-service in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Bert', 'Anna'] });
  let context: BrowserContext;
  let page: Page;
  let shots: string | undefined;
  const settings = () => openBoard(page, t.board, '/settings');

  /** Another session of Anna's, from a client that says it is `userAgent`. */
  async function annaElsewhere(userAgent: string): Promise<Client> {
    const client = visitor(t.board);
    const login = await client.post('/api/auth/login', { user: 'Anna', pass: password }, { 'user-agent': userAgent });
    assert.equal(login.status, 200, login.text);
    return client;
  }

  before(async () => {
    shots = screenshotDir('account');
    ({ context, page } = await t.newPage());
    await openBoard(page, t.board, '/login');
    await page.getByLabel('Benutzername').fill('Anna');
    await page.getByLabel('Passwort').fill(password);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.locator('#nav').getByRole('link', { name: 'Anna' }).waitFor();
  });

  test('8: the sessions list names each device in words, never the raw User-Agent, and ends one or all others', async () => {
    const laptop = await annaElsewhere(firefoxOnLinux);
    const phone = await annaElsewhere(safariOnIphone);
    await settings();
    const list = page.getByRole('list', { name: 'Deine Anmeldungen' });
    const items = list.getByRole('listitem');
    await list.waitFor();
    const texts = await items.allTextContents();
    assert.equal(texts.length, 4, 'this browser, the login in the set-up (member) and two more');
    assert.ok(texts.some((t) => t.includes('Firefox auf Linux')));
    assert.ok(texts.some((t) => t.includes('Safari auf iPhone')));
    const current = list.locator('li[data-current]');
    await current.filter({ hasText: 'Chrome auf Linux' }).filter({ hasText: 'Diese Anmeldung' }).waitFor();
    assert.equal(await page.getByText('Mozilla/5.0').count(), 0, 'no raw User-Agent anywhere');
    await keepScreenshot(page, shots, 'settings-sessions', { fullPage: true });

    await items
      .filter({ hasText: 'Firefox auf Linux' })
      .getByRole('button', { name: /^Beenden/ })
      .click();
    await page
      .locator('main .local-status')
      .filter({ hasText: 'Die Anmeldung „Firefox auf Linux“ ist beendet.' })
      .waitFor();
    assert.equal((await laptop.get('/api/user/info')).status, 401);
    assert.equal((await phone.get('/api/user/info')).status, 200);

    await page.getByRole('button', { name: 'Alle anderen Anmeldungen beenden' }).click();
    await page.locator('main .local-status').filter({ hasText: '2 andere Anmeldungen sind beendet.' }).waitFor();
    assert.equal((await phone.get('/api/user/info')).status, 401);
    assert.equal(await items.count(), 1);
  });

  test('a button pressed with the keyboard keeps the focus while its request runs: aria-disabled, not disabled', async () => {
    await annaElsewhere(firefoxOnLinux);
    await settings();
    const focused = (element: Locator) => element.evaluate((el) => el === el.ownerDocument.activeElement);
    /** While its request is held, the button keeps the focus and says that it waits, without being disabled. */
    const assertWaitsFocused = async (button: Locator) => {
      assert.equal(await focused(button), true, 'the focus stays on the button while it waits');
      assert.equal(await button.getAttribute('aria-disabled'), 'true');
      assert.equal(await button.evaluate((el) => el.hasAttribute('disabled')), false);
    };

    // A button that acts on its own (onClickBusy): the list's "end all others".
    const revoke = await holdRequests(page, '**/api/user/sessions/revoke-others');
    const others = page.getByRole('button', { name: 'Alle anderen Anmeldungen beenden' });
    await others.focus();
    await page.keyboard.press('Enter');
    await revoke.arrived();
    await assertWaitsFocused(others);
    await page.keyboard.press('Enter'); // a second press while it waits sends nothing
    await revoke.release();
    await page.locator('main .local-status').filter({ hasText: 'Eine andere Anmeldung ist beendet.' }).waitFor();
    assert.equal(revoke.count, 1, 'one request for two presses');
    assert.equal(await focused(others), true, 'and after the answer');
    assert.equal(await others.getAttribute('aria-disabled'), null);

    // A form's submit button (onSubmit): the password change, answered with a wrong current password.
    const change = await holdRequests(page, '**/api/user/password');
    await page.getByLabel('Aktuelles Passwort').fill('nicht mein Passwort');
    await page.getByLabel('Neues Passwort', { exact: true }).fill('ein neues Passwort 1');
    await page.getByLabel('Neues Passwort wiederholen').fill('ein neues Passwort 1');
    const submit = page.getByRole('button', { name: 'Passwort ändern' });
    await submit.focus();
    await page.keyboard.press('Enter');
    await change.arrived();
    await assertWaitsFocused(submit);
    await change.release();
    await page
      .locator('.field', { has: page.getByLabel('Aktuelles Passwort') })
      .locator('.field-error')
      .filter({ hasText: /falsch/ })
      .waitFor();
    assert.equal(await focused(page.getByLabel('Aktuelles Passwort')), true, 'the error takes the focus to its field');
    assert.equal(await submit.getAttribute('aria-disabled'), null);
  });

  test('the password change asks for the current password first, names each bad field, and ends the other sessions', async () => {
    const other = await annaElsewhere(firefoxOnLinux);
    await settings();
    const errorOf = (label: string) =>
      page.locator('.field', { has: page.getByLabel(label, { exact: true }) }).locator('.field-error');
    await page.getByLabel('Aktuelles Passwort').fill('nicht mein Passwort');
    await page.getByLabel('Neues Passwort', { exact: true }).fill('ein neues Passwort 1');
    await page.getByLabel('Neues Passwort wiederholen').fill('ein neues Passwort 1');
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    await errorOf('Aktuelles Passwort')
      .filter({ hasText: /falsch/ })
      .waitFor();
    await page.getByLabel('Aktuelles Passwort').fill(password);
    await errorOf('Aktuelles Passwort').waitFor({ state: 'hidden' });
    await page.getByLabel('Neues Passwort wiederholen').fill('ein anderes Passwort');
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    await errorOf('Neues Passwort wiederholen').filter({ hasText: 'stimmen nicht überein' }).waitFor();
    await page.getByLabel('Neues Passwort wiederholen').fill('ein neues Passwort 1');
    await page.getByRole('button', { name: 'Passwort ändern' }).click();
    await page
      .locator('main .local-status')
      .filter({ hasText: 'Dein Passwort ist geändert. Alle anderen Anmeldungen sind beendet.' })
      .waitFor();
    assert.equal(await page.getByLabel('Aktuelles Passwort').inputValue(), '');
    assert.equal((await other.get('/api/user/info')).status, 401, 'the other session ended');
    await page
      .getByRole('list', { name: 'Deine Anmeldungen' })
      .getByRole('listitem')
      .filter({ hasText: 'Diese Anmeldung' })
      .waitFor();
    assert.equal(await page.getByRole('list', { name: 'Deine Anmeldungen' }).getByRole('listitem').count(), 1);
    const fresh = visitor(t.board);
    assert.equal((await fresh.post('/api/auth/login', { user: 'Anna', pass: 'ein neues Passwort 1' })).status, 200);
  });

  test("the data export downloads as a zip with the account's name and date", async () => {
    await settings();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Daten herunterladen (ZIP)' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^board-Anna-\d{4}-\d{2}-\d{2}\.zip$/);
    const bytes = readFileSync((await download.path())!);
    assert.equal(bytes.subarray(0, 4).toString('latin1'), 'PK\u0003\u0004');
    assert.ok(bytes.includes(Buffer.from('account.json')));
  });

  test('muting from an entry folds that account\'s entries in feed and threads for this reader only; "anzeigen" unfolds one', async () => {
    const loud = (await t.members.Bert.post('/api/entry/create', { content: 'Bert ist sehr laut' })).body.pid as number;
    const reply = (
      await t.members.Bert.post('/api/entry/create', { content: 'Bert antwortet auch laut', reply_to: loud })
    ).body.pid as number;
    await openBoard(page, t.board, '/');
    const card = page.locator(`article#e${loud}`);
    await card.getByRole('button', { name: 'Mehr', exact: true }).click();
    await card.getByRole('button', { name: 'Bert stummschalten' }).click();
    const folded = page.locator(`article#e${loud}.entry-muted`);
    await folded.filter({ hasText: 'Beitrag eines stummgeschalteten Kontos — anzeigen' }).waitFor();
    await page.locator(`article#e${loud}:focus`).waitFor();
    await folded.locator('.local-status').filter({ hasText: 'Bert ist stummgeschaltet' }).waitFor();
    await page.locator(`article#e${reply}.entry-muted`).waitFor(); // the latest reply below folds as well
    assert.equal(await page.getByText('Bert ist sehr laut').count(), 0);

    // The feed answer is the shared one: nothing about the reader in it, the page does the folding.
    const feedRequests = t.recorders[0]!.requests.filter((url) => url.includes('/api/entry/feed/'));
    assert.ok(feedRequests.every((url) => new URL(url).search === ''));

    await page.reload();
    await page.locator(`article#e${loud}.entry-muted`).waitFor();
    await page.locator(`article#e${loud}`).getByRole('button', { name: 'anzeigen' }).click();
    await page.locator(`article#e${loud}:not(.entry-muted)`).filter({ hasText: 'Bert ist sehr laut' }).waitFor();
    await page.locator(`article#e${loud} .vote-yes`).filter({ hasText: 'Ja 0' }).waitFor(); // its tally, already loaded

    await openBoard(page, t.board, `/e/${loud}`);
    await page.locator(`article#e${reply}.entry-muted`).waitFor();
    await openBoard(page, t.board, '/u/Bert');
    await page.locator(`article#e${loud}`).filter({ hasText: 'Bert ist sehr laut' }).waitFor(); // a profile is opened to read that account
    await page.getByRole('button', { name: 'Stummschaltung von Bert aufheben' }).waitFor();

    const other = await t.newPage();
    const someoneElse = other.page;
    await openBoard(someoneElse, t.board, '/');
    await someoneElse.locator(`article#e${loud}`).filter({ hasText: 'Bert ist sehr laut' }).waitFor();
    assert.equal(await someoneElse.locator('.entry-muted').count(), 0, 'nobody else is affected');
    await t.giveBack(other.page);
  });

  test('the settings list the muted accounts with the way back; unmuting there or on the profile shows the entries again', async () => {
    await settings();
    const mutes = page.getByRole('list', { name: 'Stummgeschaltete Konten' });
    await mutes.getByRole('link', { name: 'Bert' }).waitFor();
    await keepScreenshot(page, shots, 'settings-mutes', { fullPage: true });
    await mutes.getByRole('button', { name: 'Stummschaltung von Bert aufheben' }).click();
    await page
      .locator('main .local-status')
      .filter({ hasText: 'Die Stummschaltung von Bert ist aufgehoben.' })
      .waitFor();
    assert.equal(await mutes.getByRole('listitem').count(), 0);
    await openBoard(page, t.board, '/');
    assert.equal(await page.locator('.entry-muted').count(), 0);

    await openBoard(page, t.board, '/u/Bert');
    await page.getByRole('button', { name: 'Bert stummschalten' }).click();
    await page.getByRole('button', { name: 'Stummschaltung von Bert aufheben' }).waitFor();
    await page.locator('.profile-tools .local-status').filter({ hasText: 'Bert ist stummgeschaltet' }).waitFor();
    await openBoard(page, t.board, '/');
    await page.locator('.entry-muted').first().waitFor();
    assert.deepEqual(
      (await (await context.request.get(`${t.board.url}/api/user/mutes`)).json()).map(
        (m: { username: string }) => m.username,
      ),
      ['Bert'],
    );
  });

  t.testCleanRecords();
});
