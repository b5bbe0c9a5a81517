import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { limitsOff, password, post, type Client } from '../helpers.ts';
import { keepScreenshot, openBoard, screenshotDir, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('moderation browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Moderation in Debian's Chromium (docs/API.md "Moderation", docs/OPERATIONS.md "Moderating the board"): a
 * moderator works the queue at /mod, the author sees the tombstone, a visitor reads the log, and
 * a ban ends the banned user's open session.
 */
describe('moderation in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Anna', 'Bert'], moderators: ['Mia'] }); // the scenes are written faster than a person would
  let shots: string | undefined;
  const pages: Record<string, Page> = {};
  const db = () => t.board.app.services.db;

  /** A browser context logged in with the session of `client` (or none), kept as pages[label]. */
  async function browserFor(label: string, client?: Client, width = 1280): Promise<Page> {
    const { page } = await t.newPage({ width, height: 900, as: client });
    pages[label] = page;
    return page;
  }

  before(async () => {
    shots = screenshotDir('moderation');
    await browserFor('mia', t.members.Mia);
    await browserFor('anna', t.members.Anna);
    await browserFor('bert', t.members.Bert);
    await browserFor('visitor');
  });

  test('a moderator sees the number of reported entries in the header and removes one from /mod', async () => {
    const pid = await post(t.members.Anna, 'Kauft billige Uhren bei uns!');
    assert.equal((await t.board.client().post(`/api/entry/${pid}/report`, { reason: 'Werbung' })).status, 200);
    const page = pages.mia!;
    await openBoard(page, t.board, '/');
    const link = page.locator('#nav').getByRole('link', { name: 'Moderation: 1 gemeldeter Beitrag' });
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Moderation' }).waitFor();

    const item = page.locator(`.queue-item[data-pid="${pid}"]`);
    await item.getByText('Kauft billige Uhren').waitFor();
    await item.getByText('„Werbung“').waitFor();
    await item.getByRole('link', { name: 'Anna', exact: true }).waitFor();
    await item.getByRole('link', { name: 'Im Zusammenhang ansehen' }).waitFor();
    await item.getByRole('button', { name: 'Entfernen' }).click();
    await item.getByText('Der Grund ist öffentlich').waitFor();
    await item.getByLabel('Grund der Entfernung').fill('Werbung für Uhren');
    await item.locator('form').getByRole('button', { name: 'Entfernen' }).click();

    await item.locator('.queue-result').filter({ hasText: 'Entfernt. Die Meldungen sind geschlossen.' }).waitFor();
    await item.getByText('Von der Moderation entfernt: Werbung für Uhren').waitFor();
    await page.locator('#nav').getByRole('link', { name: 'Moderation', exact: true }).waitFor();
    assert.deepEqual(db().one('SELECT removed, removed_reason FROM entries WHERE pid = ?', pid), {
      removed: 1,
      removed_reason: 'Werbung für Uhren',
    });
    await keepScreenshot(page, shots, 'mod-queue', { fullPage: true });
  });

  test('the author sees the tombstone with the reason, and cannot reply to it', async () => {
    const pid = db().one<{ pid: number }>("SELECT pid FROM entries WHERE content LIKE 'Kauft billige Uhren%'")!.pid;
    const page = pages.anna!;
    await openBoard(page, t.board, `/e/${pid}`);
    await page.locator(`article#e${pid}`).getByText('Von der Moderation entfernt: Werbung für Uhren').waitFor();
    await page.getByText('Auf einen entfernten Beitrag kann man nicht antworten.').waitFor();
    assert.equal(await page.getByText('Kauft billige Uhren').count(), 0, 'the text is gone from the page');
  });

  test("a visitor finds the moderation log in the footer and reads the line, without a moderator's name", async () => {
    const page = pages.visitor!;
    await openBoard(page, t.board, '/');
    await page.locator('footer').getByRole('link', { name: 'Moderationsprotokoll' }).click();
    await page.getByRole('heading', { level: 1, name: 'Moderationsprotokoll' }).waitFor();
    const row = page.locator('.modlog-row').first();
    await row.getByText(/Beitrag #\d+ von Anna entfernt/).waitFor();
    await row.getByText('Grund: „Werbung für Uhren“').waitFor();
    assert.equal(await page.locator('main').getByText('Mia').count(), 0);
    assert.equal(await row.getByRole('button', { name: 'Wiederherstellen' }).count(), 0, 'only moderators can undo');
  });

  test("a ban from /mod ends the banned user's open session: their next action asks them to log in", async () => {
    const pid = await post(t.members.Bert, 'Ihr seid alle doof');
    await t.board.client().post(`/api/entry/${pid}/report`, { reason: 'Beleidigung' });
    const bert = pages.bert!;
    await openBoard(bert, t.board, '/');
    await bert.locator('#nav').getByRole('link', { name: 'Bert' }).waitFor();

    const mia = pages.mia!;
    await openBoard(mia, t.board, '/mod');
    const item = mia.locator(`.queue-item[data-pid="${pid}"]`);
    await item.getByText('Ihr seid alle doof').waitFor();
    await item.getByRole('button', { name: 'Bert sperren' }).click();
    await item.getByLabel('Grund der Sperre von Bert').fill('Beleidigungen');
    await item.getByLabel('Dauer in Tagen').fill('7');
    await item.locator('form').getByRole('button', { name: 'Sperren' }).click();
    await item
      .locator('.queue-result')
      .filter({ hasText: /Bert ist gesperrt bis \d\d\.\d\d\.\d{4}/ })
      .waitFor();
    await item.getByRole('button', { name: 'Verwerfen' }).waitFor(); // the reports stay open after a ban without purge

    await bert.getByRole('button', { name: 'Neues Thema schreiben' }).click();
    await bert.getByLabel('Dein Beitrag').fill('Noch ein Beitrag');
    await bert.getByRole('button', { name: 'Veröffentlichen' }).click();
    await bert.locator('.form-message').filter({ hasText: 'Bitte melde dich an' }).waitFor();
    await bert.locator('#nav').getByRole('link', { name: 'Anmelden' }).waitFor();
    await bert.locator('#status').filter({ hasText: 'Anmeldung ist beendet' }).waitFor();

    await openBoard(bert, t.board, '/login');
    await bert.getByLabel('Benutzername').fill('Bert');
    await bert.getByLabel('Passwort').fill(password);
    await bert.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await bert
      .locator('.form-message')
      .filter({ hasText: /gesperrt bis/ })
      .waitFor();
    await openBoard(bert, t.board, '/u/Bert');
    await bert.getByText(/Dieses Konto ist gesperrt bis/).waitFor();
  });

  test('a moderator removes an entry from its card in a thread, and restores it from the log', async () => {
    const top = await post(t.members.Anna, 'Ein Thema');
    const reply = await post(t.members.Anna, 'Off-Topic-Antwort', top);
    const page = pages.mia!;
    await openBoard(page, t.board, `/e/${top}`);
    const card = page.locator(`article#e${reply}`);
    await card.getByRole('button', { name: 'Mehr', exact: true }).click(); // the less-used actions are folded (issue 16)
    await card.getByRole('button', { name: 'Entfernen' }).click();
    await card.getByLabel('Grund der Entfernung').fill('Off-Topic');
    await card.locator('form').getByRole('button', { name: 'Entfernen' }).click();
    await page.locator(`article#e${reply}`).getByText('Von der Moderation entfernt: Off-Topic').waitFor();

    await openBoard(page, t.board, '/modlog');
    const row = page.locator('.modlog-row', { hasText: `Beitrag #${reply} von Anna entfernt` });
    await row.getByRole('button', { name: 'Wiederherstellen' }).click();
    await row.getByText('Wiederhergestellt.').waitFor();
    assert.equal(db().value('SELECT deleted FROM entries WHERE pid = ?', reply), 0);
  });

  test("/mod tells others it is only for the moderation; the moderators' tools are on nobody else's page", async () => {
    const anna = pages.anna!;
    await openBoard(anna, t.board, '/mod');
    await anna.getByText('Diese Seite ist nur für die Moderation.').waitFor();
    assert.equal(
      await anna
        .locator('#nav')
        .getByRole('link', { name: /Moderation/ })
        .count(),
      0,
    );
    await openBoard(anna, t.board, '/u/Bert');
    assert.equal(await anna.getByRole('heading', { name: 'Moderation' }).count(), 0);
    await openBoard(pages.visitor!, t.board, '/mod');
    await pages.visitor!.getByRole('link', { name: 'meldet sich zuerst an' }).waitFor();
  });

  test('on a phone, /mod and /modlog fit the width', async () => {
    const phone = await browserFor('phone', t.members.Mia, 390);
    const pid = await post(t.members.Anna, `Ein langer Beitrag ${'mit vielen Wörtern '.repeat(20)}`);
    await t.board.client().post(`/api/entry/${pid}/report`, { reason: 'x'.repeat(200) });
    for (const path of ['/mod', '/modlog']) {
      await openBoard(phone, t.board, path);
      await phone.locator('main h1').waitFor();
      assert.equal(
        await phone.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
        0,
        `horizontal overflow on ${path}`,
      );
      await keepScreenshot(phone, shots, `phone${path.replace('/', '-')}`, { fullPage: true });
    }
  });

  t.testCleanRecords();
});
