import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { assertDocumented, assertError, limitsOff, post, uidOf, useBoard, type TestBoard } from '../helpers.ts';
import { checkSettingNames } from '../../lib/process/setting-warnings.ts';
import { startFakeSite, type FakeSite } from '../helpers/previews.ts';
import { fakeBrowser, pushService } from '../helpers/push.ts';

/**
 * docs/API.md "Web Push" with BOARD_PUSH=0 (docs/OPERATIONS.md "Settings"): the operator has
 * turned Web Push off. The key endpoint says so, no subscription is taken, no key is made and
 * nothing is sent; devices stored before stay (listed, deletable) for when it is on again.
 */

const service = pushService();
let site: FakeSite;

function count(board: TestBoard, table: string): number {
  return board.app.services.db.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)!.n;
}

describe('web push turned off (BOARD_PUSH=0)', () => {
  const t = useBoard({
    prepare: async () => {
      site = await startFakeSite({ '/push/anna': service.handler });
    },
    env: () => ({
      ...limitsOff,
      BOARD_PUSH: '0',
      BOARD_PREVIEW_ALLOW: '127.0.0.1/32',
      BOARD_PREVIEW_PORTS: String(site.port),
    }),
    start: { push: { pollMs: 20 } },
    members: ['Anna', 'Bert'],
  });
  after(() => site?.close());

  test('GET /api/user/push says enabled 0 with no key; no key pair is made; no sender runs', async () => {
    const { Anna } = t.members;
    const state = await Anna.get('/api/user/push');
    assert.equal(state.status, 200, state.text);
    assertDocumented(state);
    assert.deepEqual(state.body, { enabled: 0, public_key: '', subscribed: 0 });
    assert.equal(count(t.board, 'push_keys'), 0, 'no VAPID key pair while off');
    assert.equal(t.board.app.jobs!.push, undefined, 'the sender does not run');
    assert.doesNotThrow(() => checkSettingNames({ BOARD_PUSH: '0' }), 'a known setting');
    assert.throws(() => checkSettingNames({ BOARD_PUHS: '0' }), {
      message: 'BOARD_PUHS is not a setting; did you mean BOARD_PUSH?',
    });
  });

  test('POST /api/user/push is refused with 403 push.off and stores nothing', async () => {
    const { Anna } = t.members;
    const browser = fakeBrowser();
    const answer = await Anna.post('/api/user/push', {
      endpoint: site.url('/push/anna'),
      p256dh: browser.p256dh,
      auth: browser.auth,
    });
    assertError(answer, 403, 'push.off');
    assertDocumented(answer);
    assert.match(answer.body.error.message, /ausgeschaltet/);
    assert.equal(count(t.board, 'push_devices'), 0);
  });

  test('a device stored while push was on stays, shows and can be ended; nothing is sent to it', async () => {
    const { Anna, Bert } = t.members;
    const db = t.board.app.services.db;
    const anna = uidOf(t.board, 'Anna');
    const current = (await Anna.get('/api/user/sessions')).body.find((s: { current: number }) => s.current === 1);
    const browser = fakeBrowser();
    service.devices.set('/push/anna', browser);
    db.run(
      'INSERT INTO push_devices (session_id, uid, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?, 0)',
      current.id,
      anna,
      site.url('/push/anna'),
      browser.p256dh,
      browser.auth,
    );
    assert.deepEqual((await Anna.get('/api/user/push')).body, { enabled: 0, public_key: '', subscribed: 1 });
    await post(Bert, 'Antwort an Anna.', await post(Anna, 'Annas Frage.'));
    assert.equal(count(t.board, 'push_outbox'), 1, 'queued as always (bounded per device), for when push is on again');
    assert.equal(t.board.app.jobs!.push, undefined, 'but no sender runs');
    assert.equal(service.received.length, 0);
    const ended = await Anna.post('/api/user/push/delete');
    assert.equal(ended.status, 200, ended.text);
    assert.equal(count(t.board, 'push_devices'), 0);
  });
});
