import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { limitsOff, post } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard, waitInPage } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('front-end finding tests', { skip: skipWithoutChromium }, () => {});

/** Issue 16, "Front end: dead ends", findings 7, 10 and 11 (1–6 and 9 in dead-ends.test.ts, 8 in account.test.ts). */
describe('the front end: contact, titles, keys', { skip: skipWithoutChromium }, () => {
  const contact = 'Matrix: @betrieb:example.org oder https://example.org/kontakt';
  const t = useBrowserBoard({ env: { ...limitsOff, BOARD_CONTACT: contact }, members: ['Anna'] });
  let page: Page;

  before(async () => {
    ({ page } = await t.newPage({ as: t.members.Anna }));
  });

  test('7: the login page says what to do with a forgotten password and how to reach the operator; the footer names the contact', async () => {
    const visitor = await t.newPage();
    const login = visitor.page;
    await openBoard(login, t.board, '/login');
    const hint = login.locator('main .forgotten');
    await hint.filter({ hasText: 'Passwort vergessen?' }).filter({ hasText: 'Link zum Zurücksetzen' }).waitFor();
    await hint.filter({ hasText: 'Matrix: @betrieb:example.org oder' }).waitFor();
    assert.equal(
      await hint.getByRole('link', { name: 'https://example.org/kontakt' }).getAttribute('href'),
      'https://example.org/kontakt',
    );
    const footer = login.locator('.site-footer .footer-contact');
    assert.equal(await footer.textContent(), `Kontakt zum Betrieb: ${contact}`);
    await footer.getByRole('link', { name: 'https://example.org/kontakt' }).waitFor();
    await t.giveBack(visitor.page);
  });

  test("10: every view has its own title; an entry's and a profile's match the format of their server-rendered head", async () => {
    const long = 'Wer hat Lust, am Samstag beim Aufräumen im Stadtpark zu helfen? Handschuhe und Säcke sind da.';
    const pid = await post(t.members.Anna, long);
    const reply = await post(t.members.Anna, '  Ich  komme\nmit zwei Freunden ', pid);
    const expected: [string, string][] = [
      ['/', 'Neueste Themen – Das Board'],
      ['/?seite=2', 'Neueste Themen, Seite 2 – Das Board'],
      [`/e/${pid}`, 'Wer hat Lust, am Samstag beim Aufräumen im Stadtpark zu … – Anna – Das Board'],
      [`/e/${reply}`, 'Ich komme mit zwei Freunden – Anna – Das Board'],
      ['/u/Anna', 'Anna – Das Board'],
      ['/login', 'Anmelden – Das Board'],
      ['/register', 'Registrieren – Das Board'],
      ['/settings', 'Einstellungen – Das Board'],
      ['/stats', 'Statistik – Das Board'],
      ['/modlog', 'Moderationsprotokoll – Das Board'],
      ['/mod', 'Nur für die Moderation – Das Board'],
      ['/gibt-es-nicht', 'Nicht gefunden – Das Board'],
    ];
    for (const [path, title] of expected) {
      await openBoard(page, t.board, path);
      assert.equal(await page.title(), title, path);
    }
    assert.equal((await t.members.Anna.post(`/api/entry/${reply}/delete`)).status, 200);
    await openBoard(page, t.board, `/e/${reply}`);
    assert.equal(await page.title(), 'Gelöschter Beitrag – Das Board', 'a deleted entry reveals nothing');
    // Titles follow client-side navigation too.
    await openBoard(page, t.board, '/');
    await page.locator('#nav').getByRole('link', { name: 'Statistik' }).click();
    await waitInPage(page, "the statistics page's title", "document.title === 'Statistik – Das Board'");
  });

  test('11: j and k move between entries, r replies to the chosen one, ? lists the keys; none fire while typing, and they can be switched off', async () => {
    const first = await post(t.members.Anna, 'Tastatur eins');
    await post(t.members.Anna, 'Tastatur zwei');
    await openBoard(page, t.board, '/');
    const entries = page.locator('main article.entry');
    const pidAt = async (i: number) => Number(await entries.nth(i).getAttribute('data-pid'));
    await page.keyboard.press('j');
    await page.locator(`article#e${await pidAt(0)}:focus`).waitFor();
    await page.keyboard.press('j');
    await page.locator(`article#e${await pidAt(1)}:focus`).waitFor();
    await page.keyboard.press('k');
    await page.locator(`article#e${await pidAt(0)}:focus`).waitFor();

    await page.keyboard.press('r');
    const reply = page.locator(`article#e${await pidAt(0)}`).getByLabel('Deine Antwort');
    await page.locator(`article#e${await pidAt(0)} textarea:focus`).waitFor();
    assert.equal(await reply.inputValue(), '', 'the r did not land in the field');
    await page.keyboard.type('jk r?');
    assert.equal(await reply.inputValue(), 'jk r?', 'typing in a field is typing');
    assert.equal(await page.locator('dialog.keys-dialog[open]').count(), 0);

    await reply.press('Escape');
    await page.locator(`article#e${first}`).locator('.entry-time').focus();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Tastenkürzel' });
    await dialog.waitFor();
    for (const what of [
      'zum nächsten Beitrag',
      'zum vorigen Beitrag',
      'auf den gewählten Beitrag antworten',
      'diese Liste zeigen',
    ])
      await dialog.getByText(what).waitFor();
    await dialog.getByLabel('Tastenkürzel verwenden').uncheck();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await page.keyboard.press('j');
    assert.equal(await page.locator('main article.entry:focus').count(), 0, 'switched off');
    await page.reload();
    await page.locator('html[data-ready="true"]').waitFor();
    await page.keyboard.press('j');
    assert.equal(await page.locator('main article.entry:focus').count(), 0, 'still off after a reload');
    await page.locator('.site-footer').getByRole('button', { name: 'Tastenkürzel' }).click();
    await dialog.getByLabel('Tastenkürzel verwenden').check();
    await dialog.getByRole('button', { name: 'Schließen' }).click();
    await page.keyboard.press('j');
    await page.locator('main article.entry:focus').waitFor();
  });

  t.testCleanRecords();
});
