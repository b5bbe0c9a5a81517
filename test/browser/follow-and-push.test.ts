import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { pushPayload } from '../../lib/push/message.ts';
import { eventually, followersTold, limitsOff, post, uidOf } from '../helpers.ts';
import { openBoard, skipWithoutDesktopChromium, useBrowserBoard } from '../helpers/browser.ts';

// Counted as skipped in the summary too, not only as a skipped suite.
if (skipWithoutDesktopChromium) test('follow and push browser tests', { skip: skipWithoutDesktopChromium }, () => {});

/**
 * Following from an entry's menu, and Web Push's service worker, in Debian's full Chromium: a
 * notification shows only there, not in the headless shell.
 */
describe('following and push in a real browser', { skip: skipWithoutDesktopChromium }, () => {
  const t = useBrowserBoard({ env: limitsOff, members: ['Anna', 'Bert'] }, 'desktop');

  function followed(name: string): number[] {
    return t.board.app.services.db
      .all<{ pid: number }>('SELECT pid FROM follows WHERE uid = ?', uidOf(t.board, name))
      .map((r) => r.pid);
  }

  test('the entry’s menu has Folgen / Nicht mehr folgen, and the notifications page shows a reply in a followed thread', async () => {
    const { Anna, Bert } = t.members;
    const top = await post(Bert, 'Bert fragt etwas.');
    const { page } = await t.newPage({ as: Anna });
    await openBoard(page, t.board, `/e/${top}`);
    const card = page.locator('article').first();
    await card.getByRole('button', { name: 'Mehr', exact: true }).click();
    await card.getByRole('button', { name: 'Folgen', exact: true }).click();
    await card.getByRole('button', { name: 'Nicht mehr folgen' }).waitFor();
    assert.ok(followed('Anna').includes(top));

    await post(Bert, 'Bert antwortet tiefer.', await post(Bert, 'Erste Ebene.', top));
    await followersTold(t.board); // just after the 201s, by the fan-out job
    await openBoard(page, t.board, '/benachrichtigungen');
    const items = page.locator('.notification-list > li');
    await items.first().getByText('hat in einem Thread geantwortet, dem du folgst').waitFor();
    assert.equal(await items.count(), 1, 'two replies, one notification until read');
    assert.match((await items.first().textContent()) ?? '', /Erste Ebene\./);

    await openBoard(page, t.board, `/e/${top}`);
    await card.getByRole('button', { name: 'Mehr', exact: true }).click();
    await card.getByRole('button', { name: 'Nicht mehr folgen' }).click();
    await card.getByRole('button', { name: 'Folgen', exact: true }).waitFor();
    assert.ok(!followed('Anna').includes(top));
  });

  test('the settings switch the author’s default follow off and on', async () => {
    const { page } = await t.newPage({ as: t.members.Bert });
    await openBoard(page, t.board, '/settings');
    const box = page.getByLabel('Eigenen neuen Threads folgen', { exact: false });
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await page.getByText('Neuen eigenen Threads folgst du nicht mehr.').first().waitFor();
    const own = t.board.app.services.db.one<{ f: number }>(
      'SELECT follow_own_threads AS f FROM users WHERE uid = ?',
      uidOf(t.board, 'Bert'),
    );
    assert.equal(own?.f, 0);
    await box.check();
    await page.getByText('Neuen eigenen Threads folgst du ab jetzt.').first().waitFor();
  });

  test('the service worker installs from /sw.js, a push delivered through CDP shows its notification, and its click opens the entry', async () => {
    const { Anna, Bert } = t.members;
    const { page, context } = await t.newPage({ as: Anna });
    await context.grantPermissions(['notifications'], { origin: t.board.url });
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => registrations.push(...updated));
    await cdp.send('ServiceWorker.enable');
    await openBoard(page, t.board, '/settings');
    // The settings' switch registers the worker; the subscription then needs the browser's push
    // service, which this closed network cannot reach (docs/API.md "Web Push": not tested here).
    const worker = context.waitForEvent('serviceworker');
    await page.getByRole('button', { name: 'Push auf diesem Gerät einschalten' }).click();
    const sw = await worker;
    assert.equal(sw.url(), `${t.board.url}/sw.js`);
    await eventually('the worker controls the page (scope /)', () =>
      page.evaluate('navigator.serviceWorker.controller !== null'),
    );
    const registration = registrations.find((r) => r.scopeURL === `${t.board.url}/`);
    assert.ok(registration, JSON.stringify(registrations));

    // What the server would send for a reply to Anna (lib/push/message.ts), delivered as a push service would.
    const top = await post(Anna, 'Anna fragt.');
    const reply = await post(Bert, 'Bert antwortet aus der Ferne.', top);
    const payload = pushPayload({
      kind: 'reply',
      pid: reply,
      username: 'Bert',
      content: 'Bert antwortet aus der Ferne.',
      filepath: '',
    });
    const deliver = () =>
      cdp.send('ServiceWorker.deliverPushMessage', {
        origin: t.board.url,
        registrationId: registration.registrationId,
        data: JSON.stringify(payload),
      });
    type Shown = { title: string; body: string; tag: string; data: { url: string } };
    // In the worker's globals (a string: this file is type-checked with Node's, not a worker's).
    const shown = (): Promise<Shown[]> =>
      sw.evaluate(`self.registration.getNotifications().then((list) =>
        list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))`);
    // The command answers at once, whether or not the worker gets the push, and in a loaded run of
    // make test now and then no notification followed one delivery. A push service delivers again
    // until the push is taken; so does the test, until one shows (still one: the tag replaces it).
    await deliver();
    let polls = 0;
    await eventually('the notification shows', async () => {
      if ((await shown()).length === 1) return true;
      if (++polls % 20 === 0) await deliver();
      return false;
    });
    assert.deepEqual(await shown(), [
      {
        title: 'Bert hat dir geantwortet',
        body: 'Bert antwortet aus der Ferne.',
        tag: `e${reply}`,
        data: { url: `/e/${reply}` },
      },
    ]);

    // A click on a notification cannot be driven through CDP: the test dispatches the worker's
    // notificationclick event with the notification shown, which runs the same handler.
    await sw.evaluate(`self.registration.getNotifications().then(([notification]) =>
      self.dispatchEvent(new NotificationEvent('notificationclick', { notification })))`);
    await page.waitForURL(`${t.board.url}/e/${reply}`);
    await page.getByText('Bert antwortet aus der Ferne.').first().waitFor();
    assert.deepEqual(await shown(), [], 'the click closed the notification');
  });

  t.testCleanRecords();
});
