import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { password } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';
import { busyFirst } from '../helpers/busy.ts';
import { formLines, recordFormLines } from '../helpers/form-lines.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('busy retry browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * Registration and login when the board answers 503 auth.busy with Retry-After (issue 31): the
 * form says "Viel Andrang – neuer Versuch in N s", waits and tries again by itself, at most 3 tries
 * and 30 s of waiting in all; a registration with proof of work sends a new challenge each try.
 * The first answers are the test's own (page.route); then the real board answers.
 */
describe('registration and login try again when the board is busy', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: { BOARD_POW: '100' }, members: ['Anna'] });

  async function fillLogin(page: Page) {
    await page.getByLabel('Benutzername').fill('Anna');
    await page.getByLabel('Passwort', { exact: true }).fill(password);
    await recordFormLines(page);
    await page.getByRole('button', { name: 'Anmelden', exact: true }).click();
  }

  test('a login answered busy once waits as told, tries again by itself and logs in', async () => {
    const { page, context } = await t.newPage();
    await openBoard(page, t.board, '/login');
    const sent = await busyFirst(page, '**/api/auth/login', 1, '1');
    await fillLogin(page);
    await page.getByText('Willkommen, Anna!').waitFor();
    await page.locator('#nav').getByRole('link', { name: 'Anna' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    assert.equal(sent.length, 2, 'one busy answer, one real');
    const lines = await formLines(page);
    assert.ok(lines.includes('status: Viel Andrang – neuer Versuch in 1 s'), lines.join(' | '));
    assert.ok(!lines.some((line) => line.startsWith('message: ')), `no error shown: ${lines.join(' | ')}`);
    assert.ok(
      (await context.cookies()).some((c) => c.name === 'session' && c.httpOnly),
      'the session cookie',
    );
  });

  test('a board busy three times in a row: three tries, then the message, and the form is free again', async () => {
    const { page, context } = await t.newPage();
    await openBoard(page, t.board, '/login');
    const sent = await busyFirst(page, '**/api/auth/login', 1000, '1');
    await fillLogin(page);
    await page.locator('.form-message').filter({ hasText: 'Der Server ist gerade ausgelastet.' }).waitFor();
    assert.equal(sent.length, 3);
    assert.equal(await page.locator('.form-status').textContent(), '');
    assert.equal(await page.getByRole('button', { name: 'Anmelden', exact: true }).getAttribute('aria-disabled'), null);
    const lines = await formLines(page);
    assert.ok(lines.includes('status: Viel Andrang – neuer Versuch in 1 s'), lines.join(' | '));
    assert.ok(!(await context.cookies()).some((c) => c.name === 'session'));
  });

  test('a wait longer than 30 s is not waited: the message at once, one try', async () => {
    const { page } = await t.newPage();
    await openBoard(page, t.board, '/login');
    const sent = await busyFirst(page, '**/api/auth/login', 1000, '31');
    await fillLogin(page);
    await page.locator('.form-message').filter({ hasText: 'Der Server ist gerade ausgelastet.' }).waitFor();
    assert.equal(sent.length, 1);
    assert.ok(!(await formLines(page)).some((line) => line.includes('Viel Andrang')));
  });

  test('a registration with proof of work answered busy once sends a new challenge on its next try and logs in', async () => {
    const { page, context, recorder } = await t.newPage();
    await openBoard(page, t.board, '/register');
    const sent = await busyFirst(page, '**/api/auth/newuser', 1, '1');
    await page.getByLabel('Benutzername').fill('Geduldige');
    await page.getByLabel('Passwort', { exact: true }).fill(password);
    await page.getByLabel('Passwort wiederholen').fill(password);
    await recordFormLines(page);
    await page.getByRole('button', { name: 'Konto anlegen' }).click();
    await page.getByText('Willkommen, Geduldige! Dein Konto ist angelegt.').waitFor();
    await page.locator('#nav').getByRole('link', { name: 'Geduldige' }).waitFor();
    assert.equal(sent.length, 2);
    const [first, second] = sent.map((body) => JSON.parse(Buffer.from(body.get('altcha') ?? '', 'base64').toString()));
    assert.ok(first.challenge.signature && second.challenge.signature);
    assert.notEqual(first.challenge.signature, second.challenge.signature, 'a challenge of its own for each try');
    const challenges = recorder.requests.filter((url) => new URL(url).pathname === '/api/auth/challenge');
    assert.equal(challenges.length, 2);
    const lines = await formLines(page);
    assert.ok(lines.includes('status: Viel Andrang – neuer Versuch in 1 s'), lines.join(' | '));
    assert.ok(
      (await context.cookies()).some((c) => c.name === 'session'),
      'the session cookie',
    );
    const row = t.board.app.services.db.one<{ status: string }>(
      "SELECT status FROM users WHERE username = 'Geduldige'",
    );
    assert.equal(row?.status, '');
  });

  t.testCleanRecords();
});
