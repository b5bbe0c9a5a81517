import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { imageFixture, limitsOff, password, post, uidOf, type Client } from '../helpers.ts';
import {
  assertCleanConsole,
  openBoard,
  showPath,
  skipWithoutChromium,
  useBrowserBoard,
  waitInPage,
} from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutChromium) test('accessibility browser tests', { skip: skipWithoutChromium }, () => {});

/** axe-core's browser bundle (a devDependency), put into each page as the test's own script: the page's CSP does not apply to it. */
const axeSource: string = createRequire(import.meta.url)('axe-core').source;

/** What axe found, reduced to what a failure message needs. */
interface Finding {
  rule: string;
  impact: string;
  help: string;
  where: string[];
}

/** Runs every axe rule (WCAG 2.x A and AA and best practices) on the page as it is; the serious and critical findings. */
async function seriousFindings(page: Page): Promise<Finding[]> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(axeSource);
  const findings =
    (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations.map((v) => ({
    rule: v.id, impact: v.impact, help: v.help, where: v.nodes.slice(0, 4).map((node) => node.target.join(' ')),
  })))`)) as Finding[];
  return findings.filter((f) => f.impact === 'serious' || f.impact === 'critical');
}

/** Roles that take no name (WAI-ARIA 1.2, "name prohibited"): an aria-label or aria-labelledby on them reaches nobody. */
const rolesWithoutName = new Set([
  'generic',
  'paragraph',
  'caption',
  'code',
  'deletion',
  'emphasis',
  'insertion',
  'strong',
  'subscript',
  'superscript',
  'none',
  'presentation',
]);

/**
 * What axe lets pass but a screen reader loses (issue 30): a name given by aria-label or
 * aria-labelledby to an element whose role takes none (the role as Chromium's own accessibility
 * tree has it), and a heading inside a <summary> or a button, whose content is presentational:
 * many screen readers no longer offer it as a heading.
 */
async function lostSemantics(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  await cdp.detach();
  const byAria = (source: { attribute?: string; value?: unknown; superseded?: boolean }) =>
    (source.attribute === 'aria-label' || source.attribute === 'aria-labelledby') &&
    source.value !== undefined &&
    !source.superseded;
  const named = nodes.filter(
    (node) => !node.ignored && rolesWithoutName.has(String(node.role?.value)) && node.name?.sources?.some(byAria),
  );
  const headings =
    (await page.evaluate(`[...document.querySelectorAll(':is(summary, button, [role="button"]) :is(h1, h2, h3, h4, h5, h6, [role="heading"])')]
    .map((el) => el.textContent)`)) as string[];
  return [
    ...named.map(
      (node) => `a ${String(node.role?.value)} named "${String(node.name?.value)}" by aria-label or aria-labelledby`,
    ),
    ...headings.map((text) => `the heading "${text}" inside a summary or a button`),
  ];
}

/**
 * Issue 16, "Checks": every page of the front end, logged out and logged in (a moderator, so the
 * moderation pages show their full form), at 1280 px (light) and 390 px (dark), with axe-core: no
 * serious or critical violation. Also the states a page changes into: the open "Mehr" list, a
 * reply form, the composer, the shortcut list, the notifications' feed address. Issue 30: on the
 * same pages and states, every aria-label has a role that carries it, and every heading stays one.
 */
describe('accessibility of every page (axe-core)', { skip: skipWithoutChromium }, () => {
  const t = useBrowserBoard({
    env: { ...limitsOff, BOARD_CONTACT: 'Matrix: @betrieb:example.org oder https://example.org/kontakt' },
    moderators: ['Anna'],
    members: ['Bert', 'Cora'],
  });
  const pages: Record<string, string> = {};

  before(async () => {
    const { Anna: anna, Bert: bert, Cora: cora } = t.members;
    const photo = await bert.postMultipart(
      '/api/entry/create',
      { content: 'Gestern am See', alt: 'Ein Steg im Abendlicht' },
      [
        {
          name: 'file',
          filename: 'see.png',
          type: 'image/png',
          data: await imageFixture({ format: 'png', width: 400, height: 260, background: '#2a6f97' }),
        },
      ],
    );
    assert.equal(photo.status, 201, photo.text);
    const root = await post(anna, 'Kennt jemand ein ruhiges Café mit WLAN? Mehr unter https://example.org/cafe');
    const middle = await post(bert, 'Das am Markt!', root);
    const deeper = await post(cora, 'Oder in der Bibliothek.', middle);
    const deepest = await post(bert, 'Stimmt, da ist es ruhig.', deeper);
    assert.equal((await anna.post(`/api/entry/${root}/vote`, { mode: 'yes' })).status, 200);
    await post(bert, '@Anna, kennst du das Café am Markt?'); // with Bert's reply above: two notifications for Anna
    const spam = await post(cora, 'Billige Uhren, nur heute!');
    const reported = await post(cora, 'Noch mehr Werbung');
    assert.equal((await bert.post(`/api/entry/${reported}/report`, { reason: 'Werbung' })).status, 200);
    assert.equal((await anna.post(`/api/mod/entry/${spam}/remove`, { reason: 'Werbung' })).status, 200);
    assert.equal((await anna.post('/api/user/mute', { user: 'Cora' })).status, 200); // a folded card on Anna's pages
    // Bert invited Cora: his profile shows moderators an invitee, and the ban form its tree box.
    t.board.app.services.db.run(
      'UPDATE users SET invited_by = ? WHERE uid = ?',
      uidOf(t.board, 'Bert'),
      uidOf(t.board, 'Cora'),
    );
    Object.assign(pages, {
      feed: '/',
      thread: `/e/${root}`,
      reply: `/e/${deepest}`,
      removed: `/e/${spam}`,
      profile: '/u/Bert',
      login: '/login',
      register: '/register',
      reset: '/reset',
      settings: '/settings',
      stats: '/stats',
      mod: '/mod',
      modlog: '/modlog',
      notFound: '/gibt-es-nicht',
      search: '/suche?q=ruhig',
      searchEmpty: '/suche?q=Tiefgarage',
      notifications: '/benachrichtigungen',
    });
  });

  for (const [width, scheme] of [
    [1280, 'light'],
    [390, 'dark'],
  ] as const) {
    for (const who of ['logged out', 'logged in'] as const) {
      test(`${who}, ${width} px (${scheme}): no serious or critical violation and no lost name or heading on any page`, async () => {
        let login: Client | undefined;
        if (who === 'logged in') {
          login = t.board.client();
          assert.equal((await login.post('/api/auth/login', { user: 'Anna', pass: password })).status, 200);
        }
        const { page } = await t.newPage({
          width,
          height: width > 800 ? 900 : 844,
          colorScheme: scheme,
          as: login,
        });
        const problems: string[] = [];
        const lost: string[] = [];
        const check = async (what: string) => {
          for (const f of await seriousFindings(page))
            problems.push(`${what}: ${f.rule} (${f.impact}) ${f.help} at ${f.where.join(', ')}`);
          for (const problem of await lostSemantics(page)) lost.push(`${what}: ${problem}`);
        };
        // One page load; the other pages are drawn by the front end's router, as a click on a link draws them.
        await openBoard(page, t.board, pages.feed!);
        for (const [name, path] of Object.entries(pages)) {
          await showPath(page, path);
          await page.locator('main h1').waitFor();
          await waitInPage(page, 'the busy mark hidden', 'document.getElementById("busy").hidden');
          await check(name);
        }
        // The states a page changes into.
        await showPath(page, pages.feed!);
        await page
          .locator('main article.entry:not(.entry-muted)')
          .first()
          // Logged out the row's one further action, "Melden", stands alone (no list of one).
          .getByRole('button', { name: who === 'logged in' ? 'Mehr' : 'Melden', exact: true })
          .click();
        await page
          .locator('main article.entry:not(.entry-muted)')
          .first()
          .getByRole('button', { name: 'Antworten' })
          .click();
        if (who === 'logged in') await page.getByRole('button', { name: 'Neues Thema schreiben' }).click();
        await check('feed with "Mehr", a reply form and the composer open');
        await page.locator('.site-footer').getByRole('button', { name: 'Tastenkürzel' }).click();
        await page.getByRole('dialog', { name: 'Tastenkürzel' }).waitFor();
        await check('the shortcut list');
        const shortcuts = page.getByRole('dialog', { name: 'Tastenkürzel' });
        await shortcuts.getByRole('button', { name: 'Schließen' }).click(); // a page load would have closed it
        await shortcuts.waitFor({ state: 'hidden' });
        if (who === 'logged in') {
          await showPath(page, pages.notifications!);
          await page.locator('details.feed-box summary').click();
          await page.getByRole('button', { name: 'Feed-Adresse erzeugen' }).click();
          await page.getByLabel('Deine geheime Feed-Adresse').waitFor();
          await check('the notifications with their feed address shown');
          await showPath(page, pages.settings!);
          await page.getByRole('button', { name: 'Einladungslink erstellen' }).click();
          await page.getByLabel('Dein neuer Einladungslink').waitFor();
          await check('the settings with a new invite link shown');
          await showPath(page, pages.profile!);
          await page.locator('section.mod-tools').getByRole('button', { name: 'Sperren' }).click();
          await page.getByLabel(/^Mit eingeladenen Konten/).waitFor();
          await check("a profile with the moderators' facts and the ban form open");
        }
        assert.deepEqual(problems, []);
        assert.deepEqual(lost, []);
        await t.giveBack(page);
      });
    }
  }

  test("the checks ran under the page's own CSP without a violation", () => {
    assert.equal(t.recorders.length, 4);
    for (const recorder of t.recorders) assertCleanConsole(recorder);
  });
});
