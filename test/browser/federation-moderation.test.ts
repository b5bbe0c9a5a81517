import { describe, test } from 'node:test';
import { fileReport } from '../../lib/moderation/reports.ts';
import { limitsOff, post } from '../helpers.ts';
import { openBoard, skipWithoutChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('federation moderation browser tests', { skip: skipWithoutChromium }, () => {});

/**
 * docs/API.md "Reports from other servers" in Debian's Chromium: /mod names the server a report
 * came from next to its reason. The report is stored as a Flag stores it (the inbox has its own
 * tests in test/api/federation-moderation.test.ts).
 */
describe('reports from other servers on /mod', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Anna'], moderators: ['Mia'] });

  test('a report from another server shows its server next to its reason', async () => {
    const pid = await post(t.members.Anna, 'Ein Beitrag, der anderswo gemeldet wird');
    const db = t.board.app.services.db;
    fileReport(db, pid, 0, 'Spam', t.board.clock.now(), 'social.example');
    const { page } = await t.newPage({ width: 1280, height: 900, as: t.members.Mia });
    await openBoard(page, t.board, '/mod');
    const item = page.locator(`.queue-item[data-pid="${pid}"]`);
    await item.getByText('von social.example').waitFor();
    await item.getByText('„Spam“').waitFor();
  });
});
