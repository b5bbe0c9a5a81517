import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { inviteLifetimeSeconds } from '../../lib/product.ts';
import { createInvite } from '../../lib/registration/invites.ts';
import { password, post, uidOf, visitor, type Client } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('invites browser tests', { skip: skipWithoutChromium }, () => {});

/** Console errors of a page (a failed request logs one too): the views must cause none. */
function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/**
 * Invites in Debian's Chromium (docs/API.md "Invites"): a member makes an invite link in the
 * settings, copies it, sees it used and revokes another; the page says why a new one cannot be made
 * before the click; a moderator sees who invited whom on the profile and bans with the invite tree.
 * Default limits, so the trust level and the open-invites cap are the real ones.
 */
describe('invites in a real browser', { skip: skipWithoutChromium }, () => {
  // Ida is the board's first account (trusted); Neu is new (level 0).
  const t = useBrowserBoard({ members: ['Ida', 'Neu'], moderators: ['Mia'] });
  const db = () => t.board.app.services.db;
  /** A registration with an invite token, as the invitee's page sends it. */
  const registerWith = (user: string, invite: string) =>
    visitor(t.board).post('/api/auth/newuser', { user, pass1: password, pass2: password, invite });
  /** The window of `client`, kept for each test that asks (t.keptPage), loaded at `path`, with its console errors from now on. */
  async function openAs(client: Client, path: string) {
    const page = await t.keptPage(`as ${client.cookie}`, { as: client });
    const errors = consoleErrors(page);
    await openBoard(page, t.board, path);
    return { page, context: page.context(), errors };
  }

  test('a member makes an invite link in the settings, copies it, and sees it used by a new account', async () => {
    const { page, context, errors } = await openAs(t.members.Ida, '/settings');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.board.url });
    await page
      .getByRole('navigation', { name: 'Bereiche der Einstellungen' })
      .getByRole('link', { name: 'Einladungen' })
      .click();
    const card = page.locator('section[aria-labelledby="invites-heading"]');
    await card.getByText('niemand braucht eine Einladung – aber wer eine hat, kommt sofort hinein').waitFor();
    await card.getByText('Offene Einladungen: 0 von höchstens 5.').waitFor();
    await card.getByText('Du hast noch niemanden eingeladen.').waitFor();

    await card.getByRole('button', { name: 'Einladungslink erstellen' }).click();
    const link = card.getByLabel('Dein neuer Einladungslink');
    await link.waitFor();
    const url = await link.inputValue();
    const token = new URL(url).hash.slice(1);
    assert.equal(url, `${t.board.config.origin}/register#${token}`);
    const stored = db().one<{ expires: number }>(
      'SELECT expires FROM invites WHERE token_hash = ? AND uid = ?',
      createHash('sha256').update(token).digest(),
      uidOf(t.board, 'Ida'),
    );
    assert.ok(stored, 'the link is the stored invite');
    // The expiry in German form, from the answer's `expires`.
    const expiry = new Intl.DateTimeFormat('de', {
      dateStyle: 'medium',
      timeStyle: 'short',
      timeZone: 'Europe/Berlin',
    }).format(new Date(stored.expires * 1000));
    await card.getByText(`Gültig bis ${expiry}, für ein Konto.`).waitFor();
    await card.getByText('Offene Einladungen: 1 von höchstens 5.').waitFor();
    await card.locator('li[data-status="open"]').getByText(`gültig bis ${expiry}`).waitFor();

    await card.getByRole('button', { name: 'Link kopieren' }).click();
    await card.locator('.local-status').filter({ hasText: 'Der Link ist kopiert.' }).waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), url);

    const made = await registerWith('Freundin', token);
    assert.equal(made.status, 201, made.text);
    await openBoard(page, t.board, '/settings');
    const used = card.locator('li[data-status="used"]');
    await used.getByText('Benutzt').waitFor();
    assert.equal(await used.getByRole('link', { name: 'Freundin' }).getAttribute('href'), '/u/Freundin');
    assert.equal(await card.getByLabel('Dein neuer Einladungslink').count(), 0, 'the link was shown once');
    assert.deepEqual(errors, []);
    await context.clearPermissions(); // Ida's window goes on to the next tests
  });

  test('an open invite is revoked from the list; the link stops working', async () => {
    const made = await t.members.Ida.post('/api/user/invites');
    assert.equal(made.status, 201, made.text);
    const { page, errors } = await openAs(t.members.Ida, '/settings');
    const card = page.locator('section[aria-labelledby="invites-heading"]');
    const open = card.locator('li[data-status="open"]');
    await open.getByRole('button', { name: /^Einladung vom .* zurückziehen$/ }).click();
    await card.locator('li[data-status="revoked"]').getByText('Zurückgezogen').waitFor();
    await card.locator('.local-status').filter({ hasText: 'Die Einladung ist zurückgezogen' }).waitFor();
    assert.notEqual(db().one<{ r: number }>('SELECT revoked_at AS r FROM invites WHERE id = ?', made.body.id)!.r, 0);
    const late = await registerWith('Zu spät', made.body.token);
    assert.equal(late.status, 404);
    assert.deepEqual(errors, []);
  });

  test('a new account reads why it cannot invite yet, and what unlocks it, before any click', async () => {
    const { page, errors } = await openAs(t.members.Neu, '/settings');
    const card = page.locator('section[aria-labelledby="invites-heading"]');
    await card
      .locator('.invite-refusal')
      .filter({ hasText: 'Neue Konten können noch niemanden einladen' })
      .filter({ hasText: 'Einladen kannst du ab 2 Tagen und 3 Beiträgen, die stehen geblieben sind.' })
      .waitFor();
    assert.equal(await card.getByRole('button', { name: 'Einladungslink erstellen' }).count(), 0);
    assert.equal(await card.getByText(/^Offene Einladungen/).count(), 0, 'nothing to count yet');
    assert.deepEqual(errors, [], 'the refusal came from a 200 answer, not a failed request');
  });

  test('at the open-invites cap the page says so; on a closed board it says invites wait for the door', async () => {
    while ((await t.members.Ida.get('/api/user/invites')).body.open < 5)
      assert.equal((await t.members.Ida.post('/api/user/invites')).status, 201);
    const { page } = await openAs(t.members.Ida, '/settings');
    const card = page.locator('section[aria-labelledby="invites-heading"]');
    await card.locator('.invite-refusal').filter({ hasText: 'höchstens 5 auf einmal' }).waitFor();
    assert.equal(await card.getByRole('button', { name: 'Einladungslink erstellen' }).count(), 0);

    await t.members.Mia.post('/api/mod/registration', { mode: 'closed' });
    await openBoard(page, t.board, '/settings');
    await card.getByText('Die Registrierung ist zurzeit geschlossen: Auch mit einer Einladung').waitFor();
    assert.equal(await card.getByRole('button', { name: 'Einladungslink erstellen' }).count(), 0);
    await t.members.Mia.post('/api/mod/registration', { mode: 'invite' });
    await openBoard(page, t.board, '/settings');
    await card.getByText('Neue Konten gibt es hier nur mit Einladung.').waitFor();
  });

  test('a moderator sees inviter and invitees on the profile and bans with the invite tree, told how many first', async () => {
    // Freundin (invited by Ida) invites Enkelin: an invite of hers, as the board would make it at level 1.
    const { clock } = t.board.app.services;
    const hers = createInvite(db(), uidOf(t.board, 'Freundin'), inviteLifetimeSeconds, clock.now());
    const enkelin = await registerWith('Enkelin', hers.token);
    assert.equal(enkelin.status, 201, enkelin.text);
    const { page, errors } = await openAs(t.members.Mia, '/u/Freundin');
    const tools = page.locator('section.mod-tools');
    const facts = tools.locator('dl.account-facts');
    await facts.getByText('Eingeladen von').waitFor();
    assert.equal(await facts.getByRole('link', { name: 'Ida' }).getAttribute('href'), '/u/Ida');
    assert.equal(
      await facts
        .getByRole('list', { name: 'Von Freundin eingeladen' })
        .getByRole('link', { name: 'Enkelin' })
        .getAttribute('href'),
      '/u/Enkelin',
    );
    await facts.getByText('0 (neues Konto)').waitFor();

    await tools.getByRole('button', { name: 'Sperren' }).click();
    const tree = tools.getByLabel(/^Mit eingeladenen Konten: sperrt 1 weiteres Konto mit/);
    await tree.check();
    await tools.getByLabel('Grund der Sperre von Freundin').fill('Spam-Ring');
    await tools.locator('form').getByRole('button', { name: 'Sperren' }).click();
    await page.getByText('Freundin ist dauerhaft gesperrt. Dazu ist 1 eingeladenes Konto gesperrt.').waitFor();
    for (const name of ['Freundin', 'Enkelin'])
      assert.equal(
        db().one<{ b: number }>('SELECT banned_until AS b FROM users WHERE username = ?', name)!.b,
        -1,
        name,
      );
    assert.equal(
      db().one<{ b: number }>("SELECT banned_until AS b FROM users WHERE username = 'Ida'")!.b,
      0,
      'not upwards',
    );

    // An account that invited nobody: no tree box to tick.
    await openBoard(page, t.board, '/u/Neu');
    await tools.getByRole('button', { name: 'Sperren' }).click();
    await tools.getByLabel('Grund der Sperre von Neu').waitFor();
    assert.equal(await tools.getByLabel(/Mit eingeladenen Konten/).count(), 0);
    await tools.locator('dl.account-facts').getByText('niemanden').waitFor();
    assert.deepEqual(errors, []);
  });

  test("the queue's ban form fetches the author's invite tree and offers to take it along", async () => {
    const pid = await post(t.members.Ida, 'Ein Beitrag, den jemand meldet');
    assert.equal((await t.members.Neu.post(`/api/entry/${pid}/report`, { reason: 'Test' })).status, 200);
    const { page, errors } = await openAs(t.members.Mia, '/mod');
    const item = page.locator(`.queue-item[data-pid="${pid}"]`);
    await item.getByRole('button', { name: 'Ida sperren' }).click();
    // Freundin and Enkelin (banned above, so a tree ban would renew their bans); the moderator's count.
    await item.getByLabel(/^Mit eingeladenen Konten: sperrt 2 weitere Konten mit/).waitFor();
    assert.equal((await t.members.Mia.get('/api/mod/user/Ida')).body.tree_size, 2);
    assert.deepEqual(errors, []);
  });

  test('a week on, the open invites show as expired and the member may invite again', async () => {
    t.board.clock.advance(8 * 86_400);
    const { page, errors } = await openAs(t.members.Ida, '/settings');
    const card = page.locator('section[aria-labelledby="invites-heading"]');
    await card.locator('li[data-status="expired"]').first().getByText('Abgelaufen am').waitFor();
    assert.equal(await card.locator('li[data-status="open"]').count(), 0);
    await card.getByText('Offene Einladungen: 0 von höchstens 5.').waitFor();
    await card.getByRole('button', { name: 'Einladungslink erstellen' }).waitFor();
    assert.deepEqual(errors, []);
  });

  t.testCleanRecords();
});
