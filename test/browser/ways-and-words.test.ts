import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { inviteLifetimeSeconds } from '../../lib/product.ts';
import { createInvite } from '../../lib/registration/invites.ts';
import { member, password, post, runAdminInProcess, uidOf, visitor } from '../helpers.ts';
import { openBoard, showPath, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

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
    const { page } = await t.newPage();
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
      await showPath(page, `/login?weiter=${encodeURIComponent(next)}`);
      assert.equal(await page.getByRole('link', { name: 'Weiter' }).getAttribute('href'), '/', next);
    }
    await showPath(page, `/login?weiter=${encodeURIComponent('/stats')}`);
    assert.equal(await page.getByRole('link', { name: 'Weiter' }).getAttribute('href'), '/stats');
    await t.giveBack(page);
  });

  test("a new account's composer says the first minutes' rule up front, and only during them", async () => {
    const fresh = await member(t.board, 'Frisch');
    const created = t.board.app.services.db.one<{ created_at: number }>(
      "SELECT created_at FROM users WHERE username = 'Frisch'",
    )!.created_at;
    const firstMinutes =
      'In den ersten 10 Minuten nach der Registrierung kannst du noch keine Links oder Bilder posten.';
    const { page } = await t.newPage({ as: fresh });
    const noteAt = async (seconds: number) => {
      await page.clock.setFixedTime(new Date((created + seconds) * 1000));
      await openBoard(page, t.board, '/');
      await page.getByRole('button', { name: 'Neues Thema schreiben' }).click();
      return (await page.locator('main form.composer .trust-note').textContent()) ?? '';
    };
    const early = await noteAt(60);
    assert.ok(early.startsWith(firstMinutes), early);
    assert.match(early, /Als neues Konto kannst du am Tag höchstens/);
    const later = await noteAt(601);
    assert.ok(!later.includes(firstMinutes), later);
    assert.match(later, /^Als neues Konto kannst du am Tag höchstens/);
    await t.giveBack(page);
  });

  test('an invite link pasted into the address bar on /register is taken: only its fragment changed', async () => {
    const invite = createInvite(
      t.board.app.services.db,
      uidOf(t.board, 'Anna'),
      inviteLifetimeSeconds,
      t.board.clock.now(),
    )!;
    const { page } = await t.newPage();
    await openBoard(page, t.board, '/register?weiter=%2Fstats');
    await page.getByLabel('Benutzername').waitFor();
    assert.equal(await page.locator('input[name="invite"]').count(), 0, 'an open board asks for no invite');
    await page.goto(`${t.board.url}/register?weiter=%2Fstats#${invite.token}`); // the same page, a new fragment
    const field = page.getByLabel('Einladung (falls du eine hast)');
    await field.waitFor();
    assert.equal(await field.inputValue(), invite.token);
    assert.equal(page.url(), `${t.board.url}/register?weiter=%2Fstats`, 'out of the address bar, the way on kept');
    await t.giveBack(page);
  });

  test('the menu of a bumped entry names its actions, not the cooldown beside "Hochholen"', async () => {
    const pid = await post(t.members.Anna, 'Hochgeholt und dann?');
    assert.equal((await t.members.Anna.post(`/api/entry/${pid}/bump`)).status, 200);
    const page = await t.keptPage('Anna', { as: t.members.Anna });
    await openBoard(page, t.board, '/');
    const card = page.locator(`main article#e${pid}`);
    const more = card.locator(':scope > .entry-actions').getByRole('button', { name: /Mehr/ });
    await card
      .locator('.bump-info')
      .filter({ hasText: /^wieder möglich/ })
      .waitFor({ state: 'attached' });
    assert.match((await more.textContent()) ?? '', /^Mehr: Hochholen, Folgen( …)? ▾$/);
  });

  test("/modlog says a registration change with the mode's German name, no raw mode; /mod says who set it at the command line", async () => {
    assert.equal((await admin(['registration', 'approval'])).code, 0);
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'invite' })).status, 200);
    const page = await t.keptPage('Anna', { as: t.members.Anna });
    await openBoard(page, t.board, '/modlog');
    const rows = page.locator('main .modlog-row');
    await rows.first().filter({ hasText: 'Registrierung auf „nur mit Einladung“ umgestellt' }).waitFor();
    assert.match((await rows.nth(1).textContent()) ?? '', /^Registrierung auf „mit Freischaltung“ umgestellt/);
    assert.equal(await page.locator('main .modlog-reason').count(), 0, 'no reason but the mode');
    assert.doesNotMatch((await page.locator('main').textContent()) ?? '', /\b(registration|approval|invite)\b/);

    assert.equal((await admin(['registration', 'closed'])).code, 0);
    const mod = await t.keptPage('Mia', { as: t.members.Mia });
    await openBoard(mod, t.board, '/mod');
    await mod.getByText('Registrierung: geschlossen (gesetzt von: Betrieb (Kommandozeile)).').waitFor();
  });

  test('an application on /mod counts "1 Registrierung" in its minute, in the singular', async () => {
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'approval' })).status, 200);
    t.board.clock.advance(120); // a minute of its own: the members above registered in another
    const applied = await visitor(t.board).post('/api/auth/newuser', {
      user: 'Antrag Eins',
      pass1: password,
      pass2: password,
      application: 'Ich lese hier seit Wochen mit und möchte mitdiskutieren.',
    });
    assert.equal(applied.status, 202, applied.text);
    const page = await t.keptPage('Mia', { as: t.members.Mia });
    await openBoard(page, t.board, '/mod');
    const item = page.locator('li[data-username="Antrag Eins"]');
    await item.waitFor();
    assert.match((await item.textContent()) ?? '', /· 1 Registrierung in derselben Minute, \d+ in der Stunde davor/);
  });

  t.testCleanRecords();
});
