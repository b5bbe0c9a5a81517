import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { password, visitor } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard, type UsedBrowserBoard } from '../helpers/browser.ts';
import { formLines, recordFormLines } from '../helpers/form-lines.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('proof-of-work login browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * The attack, straight at the API from addresses of its own: 20 failed logins for `name` in a
 * minute; then its owner logs in through the login form, which solves the challenge in Web
 * Workers of the board's own origin without an extra click.
 */
async function logInUnderAttack(t: UsedBrowserBoard<string>, name: string): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const guess = await visitor(t.board).post('/api/auth/login', { user: name, pass: 'falsch geraten' });
    assert.equal(guess.status, 401, guess.text);
  }
  const nameNeedsWork = await visitor(t.board).post('/api/auth/login', { user: name, pass: password });
  assert.equal(nameNeedsWork.body.error?.code, 'pow.invalid', 'the threshold is passed');

  const { page, context, recorder } = await t.newPage();
  await openBoard(page, t.board, '/login');
  await page.getByLabel('Benutzername').fill(name);
  await page.getByLabel('Passwort', { exact: true }).fill(password);
  await recordFormLines(page);
  await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
  await page.getByText(`Willkommen, ${name}!`).waitFor();
  await page.locator('#nav').getByRole('link', { name }).waitFor();
  assert.equal(new URL(page.url()).pathname, '/', 'the landing page');
  const lines = await formLines(page);
  assert.ok(
    lines.some((line) => line.startsWith('status: Rechenaufgabe gegen Bots:')),
    `the status line showed the work: ${lines.join(' | ')}`,
  );
  assert.ok(!lines.some((line) => line.startsWith('message: ')), `no error shown: ${lines.join(' | ')}`);
  const paths = recorder.requests.map((url) => new URL(url).pathname);
  assert.equal(paths.filter((p) => p === '/api/auth/login').length, 2, 'one refused for want of work, one solved');
  assert.ok(paths.includes('/api/auth/challenge') && paths.includes('/static/pow-worker.js'), paths.join(' '));
  const cookie = (await context.cookies()).find((c) => c.name === 'session');
  assert.ok(cookie?.httpOnly, 'the session cookie');
  const me = await t.board.client().get('/api/auth/whoami', { cookie: `session=${cookie.value}` });
  assert.equal(me.body.username, name);
}

/**
 * Proof of work in Debian's Chromium (docs/API.md "Proof of work"), at a small cost so the suite is
 * quick: once a name has had its 20 failed logins in a minute, the login form solves the challenge
 * in Web Workers of the board's own origin and logs in without an extra click; an open registration
 * solves its challenge the same way and lands logged in.
 */
describe('login and registration with proof of work in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: { BOARD_POW: '100' }, members: ['Anna'] });

  test('a name under a guessing attack: the login form solves the challenge by itself and logs in', async () => {
    await logInUnderAttack(t, 'Anna');
  });

  test('an open registration solves its challenge and lands logged in', async () => {
    const { page, context, recorder } = await t.newPage();
    await openBoard(page, t.board, '/register');
    await page.getByLabel('Benutzername').fill('Neue Leserin');
    await page.getByLabel('Passwort', { exact: true }).fill(password);
    await page.getByLabel('Passwort wiederholen').fill(password);
    await page.getByRole('button', { name: 'Konto anlegen' }).click();
    await page.getByText('Willkommen, Neue Leserin! Dein Konto ist angelegt.').waitFor();
    await page.locator('#nav').getByRole('link', { name: 'Neue Leserin' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    const paths = recorder.requests.map((url) => new URL(url).pathname);
    assert.ok(paths.includes('/api/auth/challenge') && paths.includes('/static/pow-worker.js'), paths.join(' '));
    assert.ok(
      (await context.cookies()).some((c) => c.name === 'session' && c.httpOnly),
      'the session cookie',
    );
    const row = t.board.app.services.db.one<{ n: number }>(
      "SELECT count(*) AS n FROM users WHERE username = 'Neue Leserin' AND status = ''",
    );
    assert.equal(row?.n, 1);
  });

  test('a registration refused before the challenge is checked keeps its solution; an expired one is solved again', async () => {
    const { page, recorder } = await t.newPage();
    const challenges = () => recorder.requests.filter((url) => new URL(url).pathname === '/api/auth/challenge').length;
    await openBoard(page, t.board, '/register');
    await page.getByLabel('Benutzername').fill('Vertipper');
    await page.getByLabel('Passwort', { exact: true }).fill(password);
    await page.getByLabel('Passwort wiederholen').fill(`${password}x`);
    await page.getByRole('button', { name: 'Konto anlegen' }).click();
    await page.getByText('Die Passwörter stimmen nicht überein.').waitFor();
    // The board refused the fields before it looked at the challenge: still good for the next try.
    await page.getByLabel('Passwort wiederholen').fill(password);
    await page.getByRole('button', { name: 'Konto anlegen' }).click();
    await page.getByText('Willkommen, Vertipper! Dein Konto ist angelegt.').waitFor();
    assert.equal(challenges(), 1, 'one challenge for both tries');

    // A form left open past the challenge's 10 minutes: the board refuses it, the page solves a fresh one.
    const late = await t.newPage();
    const lateChallenges = () =>
      late.recorder.requests.filter((url) => new URL(url).pathname === '/api/auth/challenge').length;
    await openBoard(late.page, t.board, '/register');
    await late.page.getByText('Rechenaufgabe gelöst.').waitFor();
    t.board.clock.advance(11 * 60);
    await late.page.getByLabel('Benutzername').fill('Langsame');
    await late.page.getByLabel('Passwort', { exact: true }).fill(password);
    await late.page.getByLabel('Passwort wiederholen').fill(password);
    await late.page.getByRole('button', { name: 'Konto anlegen' }).click();
    await late.page.getByText('Willkommen, Langsame! Dein Konto ist angelegt.').waitFor();
    assert.equal(lateChallenges(), 2, 'the expired one and a fresh one');
  });

  t.testCleanRecords();
});

describe('a login on a default board (BOARD_POW off, the login part on) in a real browser', {
  skip: skipWithoutChromium,
}, () => {
  const t = useBrowserBoard({ members: ['Berta'] });

  test('a name under a guessing attack: the login form solves a challenge of the recommended cost and logs in', async () => {
    assert.equal(t.board.config.pow, 0);
    await logInUnderAttack(t, 'Berta');
  });

  t.testCleanRecords();
});
