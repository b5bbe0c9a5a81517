import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { limitsOff } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('push-off browser test', { skip: skipWithoutChromium }, () => {});

/** BOARD_PUSH=0 (docs/API.md "Web Push"): the settings say push is off instead of offering a switch that cannot work. */
describe('web push turned off, in a real browser', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: { ...limitsOff, BOARD_PUSH: '0' }, members: ['Anna'] });

  test('the settings show that push is off on this board, and no push switch', async () => {
    const { page } = await t.newPage({ as: t.members.Anna });
    await openBoard(page, t.board, '/settings');
    await page.getByText('Push-Benachrichtigungen sind auf diesem Board ausgeschaltet.').waitFor();
    assert.equal(await page.getByRole('button', { name: /Push auf diesem Gerät/ }).count(), 0);
    // The rest of the section still works: the follow setting is there.
    await page.getByLabel('Eigenen neuen Threads folgen', { exact: false }).waitFor();
  });
});
