import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { emptyFolder, limitsOff, password, post, type Client } from '../helpers.ts';
import {
  keepScreenshot,
  makePng,
  openBoard,
  type PageOptions,
  screenshotDir,
  skipWithoutChromium,
  useBrowserBoard,
} from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('dead-end browser tests', { skip: skipWithoutChromium }, () => {});

/** Box of an element in the page, for "does it fit, does it cover". */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

function _overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/**
 * Issue 16, "Front end: dead ends": each finding of a new user's first visit, in Debian's Chromium
 * (findings 1–6 and 9 here; 7, 10 and 11 in front-end-findings.test.ts; 8 and the settings in account.test.ts).
 */
describe('no dead ends for a new user', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Bert', 'Anna'] }); // the scenes are written faster than a person would
  let png: string;
  let shots: string | undefined;

  /** A browser user's window at a width; logged in as Anna (a session of its own) when asked. */
  async function windowOf(width: number, loggedIn: boolean): Promise<PageOptions> {
    let anna: Client | undefined;
    if (loggedIn) {
      anna = t.board.client();
      assert.equal((await anna.post('/api/auth/login', { user: 'Anna', pass: password })).status, 200);
    }
    return { width, height: width > 800 ? 900 : 844, as: anna };
  }

  /** A fresh browser user (its own cookies) at a width. */
  async function open(width = 1280, loggedIn = false): Promise<Page> {
    return (await t.newPage(await windowOf(width, loggedIn))).page;
  }

  /** The same browser user at a width for each test that asks (t.keptPage). */
  function reused(width = 1280, loggedIn = false): Promise<Page> {
    return t.keptPage(`${width} ${loggedIn}`, () => windowOf(width, loggedIn));
  }

  before(async () => {
    shots = screenshotDir('dead-ends');
    png = await makePng();
  });

  test('1: a logged-out Ja or Antworten offers the login right there, and the login comes back to the same entry', async () => {
    const target = await post(t.members.Bert, 'Das Ziel auf Seite 2');
    for (let i = 1; i <= 20; i++) await post(t.members.Bert, `Neueres Thema ${i}`);
    const page = await open();
    const voteRequests: string[] = [];
    page.on('request', (request) => {
      if (/\/vote$/.test(new URL(request.url()).pathname)) voteRequests.push(request.url());
    });
    await openBoard(page, t.board, '/?seite=2');
    const card = page.locator(`article#e${target}`);
    await card.locator('.vote-yes').click();
    const offer = card.locator('.login-offer');
    await offer.getByRole('link', { name: 'anmelden' }).waitFor();
    await page.locator(`article#e${target} .login-offer a:focus`).waitFor(); // focus moved to the way on
    const back = `/?seite=2#e${target}`;
    assert.equal(
      await offer.getByRole('link', { name: 'anmelden' }).getAttribute('href'),
      `/login?weiter=${encodeURIComponent(back)}`,
    );
    assert.equal(
      await offer.getByRole('link', { name: 'ein Konto anlegen' }).getAttribute('href'),
      `/register?weiter=${encodeURIComponent(back)}`,
    );
    assert.deepEqual(voteRequests, [], 'no request that can only fail');
    assert.equal(await page.locator('#status').textContent(), '', 'no error toast');

    await card.getByRole('button', { name: 'Antworten' }).click();
    await offer.filter({ hasText: 'Zum Antworten bitte' }).waitFor();
    await offer.getByRole('link', { name: 'anmelden' }).click();
    await page.getByRole('heading', { level: 1, name: 'Anmelden' }).waitFor();
    await page.getByLabel('Benutzername').fill('Anna');
    await page.getByLabel('Passwort').fill(password);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
    await page.waitForURL(`${t.board.url}${back}`);
    await page.locator(`article#e${target}:focus`).waitFor();
    const box = (await card.boundingBox())!;
    assert.ok(box.y >= 0 && box.y < page.viewportSize()!.height, 'the entry is on screen');
    await page.locator('#status').filter({ hasText: 'Willkommen, Anna!' }).waitFor();
    await card.locator('.vote-yes').click();
    await card.locator('.vote-yes[aria-pressed="true"]').filter({ hasText: 'Ja 1' }).waitFor();
    await keepScreenshot(page, shots, 'back-after-login');
  });

  test('2: a field error goes as soon as its field changes: "Der Beitrag ist leer" after typing and after choosing an image', async () => {
    const page = await reused(1280, true);
    await openBoard(page, t.board, '/');
    await page.getByRole('button', { name: 'Neues Thema schreiben' }).click();
    const text = page.getByLabel('Dein Beitrag');
    const publish = page.getByRole('button', { name: 'Veröffentlichen' });
    const error = page.locator('.write-new .field', { has: text }).locator('.field-error');
    await publish.click();
    await error.filter({ hasText: 'Der Beitrag ist leer' }).waitFor();
    assert.equal(await text.getAttribute('aria-invalid'), 'true');
    await text.pressSequentially('H');
    await error.waitFor({ state: 'hidden' });
    assert.equal(await text.getAttribute('aria-invalid'), null);

    await text.fill('');
    await publish.click();
    await error.filter({ hasText: 'Der Beitrag ist leer' }).waitFor();
    await page.getByLabel('Bild (optional)').setInputFiles(png);
    await error.waitFor({ state: 'hidden' });
    assert.equal(await text.getAttribute('aria-invalid'), null);

    // Any form: the registration's name error goes when the name is typed again.
    const visitor = await reused();
    await openBoard(visitor, t.board, '/register');
    await visitor.getByRole('button', { name: 'Konto anlegen' }).click();
    const nameError = visitor.locator('.field', { has: visitor.getByLabel('Benutzername') }).locator('.field-error');
    await nameError.filter({ hasText: /\S/ }).waitFor();
    await visitor.getByLabel('Benutzername').pressSequentially('Ca');
    await nameError.waitFor({ state: 'hidden' });
  });

  test("3: a message belongs to its page: an action's shows in its card, covers nothing on a phone, is read out, and a navigation clears it", async () => {
    const pid = await post(t.members.Bert, 'Ein Beitrag, den man melden kann. '.repeat(4));
    const page = await open(390, true);
    await openBoard(page, t.board, `/e/${pid}`);
    const card = page.locator(`article#e${pid}`);
    await card.getByRole('button', { name: 'Mehr', exact: true }).click();
    await card.getByRole('button', { name: 'Melden' }).click();
    await card.getByLabel('Grund (optional)').fill('Doppelt gepostet, bitte zusammenführen, danke');
    await card.getByRole('button', { name: 'Meldung senden' }).click();
    const local = card.locator('.local-status');
    await local.filter({ hasText: 'Danke! Die Meldung ist eingegangen.' }).waitFor();
    // Read out by the one live region, which is not shown a second time.
    const region = page.locator('#status');
    assert.equal(await region.getAttribute('role'), 'status');
    assert.equal(await region.getAttribute('aria-live'), 'polite');
    assert.equal(await region.textContent(), 'Danke! Die Meldung ist eingegangen.');
    assert.equal(
      await region.evaluate((el) => el.getBoundingClientRect().width <= 1),
      true,
      'the region itself is not drawn over the page',
    );
    // Nothing covers the card: at the centre of every action button the button itself is hit.
    for (const button of await card
      .locator(':scope > .entry-actions > button, :scope > .entry-actions .votes button')
      .all()) {
      const r = (await button.boundingBox())!;
      const hit = await page.evaluate(
        `document.elementFromPoint(${r.x + r.width / 2}, ${r.y + r.height / 2})?.closest('button')?.textContent`,
      );
      assert.equal(hit, await button.textContent());
    }
    const fixed = await page.evaluate(
      "[...document.querySelectorAll('body *')].filter((el) => getComputedStyle(el).position === 'fixed' && el.getClientRects().length > 0 && el.textContent).length",
    );
    assert.equal(fixed, 0, 'no fixed message box on top of the page');
    await keepScreenshot(page, shots, 'phone-report-message');

    // A page message (the login's welcome) stays with its page: the next page starts without it.
    await page.locator('#nav').getByRole('link', { name: 'Statistik' }).click();
    await page.getByRole('heading', { level: 1, name: 'Statistik' }).waitFor();
    assert.equal(await region.textContent(), '');
    await page.goBack();
    await card.waitFor();
    assert.equal(await region.textContent(), '');
    assert.equal(await card.locator('.local-status').textContent(), '');
  });

  test('4: the way into the replies in between is a comfortable target in clear words', async () => {
    const root = await post(t.members.Bert, 'Wer kennt einen guten Bäcker?');
    const middle = await post(t.members.Bert, 'Meinst du hier in der Nähe?', root);
    const deeper = await post(t.members.Bert, 'Ja, am Markt', middle);
    await post(t.members.Bert, 'Dann den am Brunnen!', deeper);
    for (const width of [1280, 390]) {
      const page = await reused(width);
      await openBoard(page, t.board, '/');
      const link = page.locator('.thread-item', { has: page.locator(`article#e${root}`) }).locator('.latest a.skipped');
      assert.equal(await link.textContent(), '2 weitere Antworten dazwischen ansehen');
      assert.equal(await link.getAttribute('href'), `/e/${deeper}`);
      const box = (await link.boundingBox())!;
      assert.ok(box.height >= 44, `${width}px: ${box.height} px high`);
      assert.ok(box.width >= (width > 800 ? 400 : 250), `${width}px: ${box.width} px wide`);
    }
  });

  test('5: the actions fit: one line at 1280 px, and the buttons on one line on a phone, the rest under "Mehr"', async () => {
    const own = await post(t.members.Bert, 'Bert schreibt selbst');
    await post(t.members.Bert, 'Und antwortet sich', own);
    for (const width of [1280, 390]) {
      const { page } = await t.newPage({ width, height: 900, as: t.members.Bert });
      await openBoard(page, t.board, '/');
      const row = page.locator(`article#e${own} > .entry-actions`);
      const buttonsOf = (actions: typeof row) =>
        actions.locator(':scope > button, :scope > .votes > button, :scope > .more > button');
      const middles = (els: { getBoundingClientRect(): { top: number; height: number } }[]) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          return r.top + r.height / 2;
        });
      const oneLine = (ys: number[]) => Math.max(...ys) - Math.min(...ys) < 6;
      // The thread's card and its newest reply's narrower card below it.
      for (const actions of [row, page.locator(`.thread-item:has(article#e${own}) .latest article > .entry-actions`)]) {
        const buttonLine = await buttonsOf(actions).evaluateAll(middles);
        assert.ok(oneLine(buttonLine), `${width}px: the buttons stand on one line (${buttonLine.join(', ')})`);
        assert.equal(buttonLine.length, 4, 'Ja, Nein, Antworten, Mehr');
      }
      if (width > 800) {
        const all = await row.locator(':scope > *:not(.more), :scope > .more > button').evaluateAll(middles);
        assert.ok(oneLine(all), `1280px: the whole row is one line (${all.join(', ')})`);
      }
      await row.getByRole('button', { name: 'Mehr', exact: true }).click();
      for (const name of [/Hochholen/, 'Melden', 'Bearbeiten', 'Löschen'])
        await row.locator('.more-list').getByRole('button', { name }).waitFor();
      const overflow = await page.evaluate(
        'document.documentElement.scrollWidth - document.documentElement.clientWidth',
      );
      assert.equal(overflow, 0, `${width}px: no sideways scrolling`);
      await keepScreenshot(page, shots, `actions-${width}`);
      await row.getByRole('button', { name: 'Mehr', exact: true }).press('Escape');
      await page.keyboard.press('Escape');
      await t.giveBack(page);
    }
  });

  test('6: a file that is not an image is refused before any upload, with the reason and no broken preview', async () => {
    const notes = join(emptyFolder('board-upload-'), 'notizen.txt');
    writeFileSync(notes, 'Das ist kein Bild.');
    const fake = join(emptyFolder('board-upload-'), 'kaputt.png');
    writeFileSync(fake, 'auch kein Bild, nur der Name');
    const page = await reused(1280, true);
    const uploads: string[] = [];
    const onRequest = (request: Request) => {
      // Every POST but the page load's own view beacon (POST /api/impression), which uploads nothing.
      const path = new URL(request.url()).pathname;
      if (request.method() === 'POST' && path !== '/api/impression') uploads.push(path);
    };
    page.on('request', onRequest);
    await openBoard(page, t.board, '/settings');
    const input = page.getByLabel(/Neues Bild/);
    const error = page.locator('.field', { has: input }).locator('.field-error');
    for (const file of [notes, fake]) {
      await input.setInputFiles(file);
      await error.filter({ hasText: 'Diese Datei ist kein Bild' }).waitFor();
      assert.equal(await page.locator('.image-preview').isHidden(), true, 'no preview of a non-image');
      assert.equal(await input.inputValue(), '', 'the file is not kept for sending');
      await page.locator('.field', { has: input }).getByText('Keine Datei ausgewählt').waitFor();
    }
    await input.setInputFiles(png);
    await error.waitFor({ state: 'hidden' });
    await page.locator('.image-preview-img').waitFor();
    assert.deepEqual(uploads, []);
    page.off('request', onRequest); // the page goes on to the next test
  });

  test('9: the composer asks for a description once an image is chosen; the image shows it as alt text, and an edit changes it', async () => {
    const page = await reused(1280, true);
    const card = (pid: number) => page.locator(`article#e${pid}`);
    await openBoard(page, t.board, '/');
    await page.getByRole('button', { name: 'Neues Thema schreiben' }).click();
    const alt = page.getByLabel('Bildbeschreibung (optional)');
    assert.equal(await alt.isHidden(), true, 'no image, nothing to describe');
    await page.getByLabel('Dein Beitrag').fill('Unser Hof im Frühling');
    await page.getByLabel('Bild (optional)').setInputFiles(png);
    await alt.waitFor();
    await alt.fill('x'.repeat(301));
    await page.getByRole('button', { name: 'Veröffentlichen' }).click();
    await page
      .locator('.field', { has: alt })
      .locator('.field-error')
      .filter({ hasText: 'höchstens 300 Zeichen' })
      .waitFor();
    await alt.fill('Ein Innenhof mit blühendem Kirschbaum und zwei Fahrrädern');
    await page.getByRole('button', { name: 'Veröffentlichen' }).click();
    const image = page.locator('article.entry', { hasText: 'Unser Hof im Frühling' }).locator('img.entry-image');
    await image.waitFor();
    assert.equal(await image.getAttribute('alt'), 'Ein Innenhof mit blühendem Kirschbaum und zwei Fahrrädern');
    assert.equal(await alt.isHidden(), true, 'the form is empty again');

    const pid = Number(
      (await page.locator('article.entry', { hasText: 'Unser Hof im Frühling' }).getAttribute('data-pid'))!,
    );
    await card(pid).getByRole('button', { name: 'Mehr', exact: true }).click();
    await card(pid).getByRole('button', { name: 'Bearbeiten' }).click();
    const editAlt = card(pid).getByLabel('Bildbeschreibung (optional)');
    assert.equal(await editAlt.inputValue(), 'Ein Innenhof mit blühendem Kirschbaum und zwei Fahrrädern');
    await editAlt.fill('Ein Innenhof mit Kirschbaum');
    await card(pid).getByRole('button', { name: 'Speichern' }).click();
    await card(pid).locator('img.entry-image[alt="Ein Innenhof mit Kirschbaum"]').waitFor();

    const plain = await t.members.Anna.postMultipart('/api/entry/create', { content: 'Ohne Beschreibung' }, [
      { name: 'file', filename: 'b.png', type: 'image/png', data: readFileSync(png) },
    ]);
    assert.equal(plain.status, 201, plain.text);
    await page.reload();
    assert.equal(await card(plain.body.pid).locator('img.entry-image').getAttribute('alt'), 'Bild von Anna');
  });

  t.testCleanRecords();
});
