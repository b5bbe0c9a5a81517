import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defaultSurgeAccounts, loadConfig } from '../../lib/config.ts';
import { surgeQuietWindows } from '../../lib/product.ts';
import { surgeThreshold } from '../../lib/registration/surge.ts';
import {
  assertDocumented,
  assertError,
  eventually,
  modlogRows,
  password,
  quickHashes,
  useBoardWithWebhook,
  visitor,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/API.md "The surge gate": with the default threshold (30 accounts) and a 10-minute window set
 * in the test's config, the 31st registration in the window waits for approval, the door switches
 * to approval (public log, webhook), moderators see the wave, and the door opens again after the
 * quiet period or by a moderator. The board's clock is the test's; nothing sleeps.
 */

const window = 600;

function registration(board: TestBoard, user: string, fields: Record<string, string> = {}) {
  return visitor(board).post('/api/auth/newuser', { user, pass1: password, pass2: password, ...fields });
}

describe('the surge gate at its default threshold', () => {
  const t = useBoardWithWebhook({
    env: { BOARD_REGISTRATION_SURGE_MINUTES: '10' },
    start: { passwords: quickHashes }, // dozens of registrations: the count is what this suite tests
    moderators: ['Mia'],
  });

  test('30 accounts in the window get in; the 31st waits, and the door is approval from then on', async () => {
    assert.equal(surgeThreshold(t.board.config), defaultSurgeAccounts);
    t.board.clock.advance(window); // Mia's account is out of the window
    for (let i = 1; i <= defaultSurgeAccounts; i++) {
      const made = await registration(t.board, `Welle ${i}`);
      assert.equal(made.status, 201, `account ${i}: ${made.text}`);
    }
    const waits = await registration(t.board, 'Welle 31');
    assert.equal(waits.status, 202, waits.text);
    assert.deepEqual(waits.body, { username: 'Welle 31', status: 'pending' });
    assert.equal((await visitor(t.board).get('/api/auth/registration')).body.mode, 'approval');
    const answerless = await registration(t.board, 'Welle 32');
    assertError(answerless, 400, 'auth.invalid');
    assert.ok(answerless.body.error.fields.application, 'approval now asks the question');
    const row = modlogRows(t.board).find((r) => r.action === 'registration')!;
    assert.deepEqual([row.reason, row.public], [`approval: ${defaultSurgeAccounts} neue Konten in 10 Minuten`, 1]);
    await eventually('the webhook message', () =>
      t.webhookBodies.some((b) => b.startsWith('Ansturm auf die Registrierung')),
    );
  });

  test('moderators see the wave in one place', async () => {
    const state = await t.members.Mia.get('/api/mod/registration');
    assert.equal(state.status, 200);
    assertDocumented(state);
    assert.equal(state.body.mode, 'approval');
    assert.equal(state.body.set_by, 'surge');
    assert.equal(state.body.last_surge.accounts, defaultSurgeAccounts);
    assert.equal(state.body.wave.length, defaultSurgeAccounts + 1);
    assert.deepEqual(state.body.wave.at(-1), {
      username: 'Welle 31',
      created_at: t.board.clock.now(),
      status: 'pending',
      banned: false,
    });
  });

  test('the door opens again after the quiet period, not before', async () => {
    t.board.clock.advance(surgeQuietWindows * window - 1);
    assert.equal((await visitor(t.board).get('/api/auth/registration')).body.mode, 'approval');
    t.board.clock.advance(1);
    assert.equal((await visitor(t.board).get('/api/auth/registration')).body.mode, 'open');
    assert.equal(modlogRows(t.board)[0]!.reason, 'open: Ansturm vorbei');
    assert.equal((await registration(t.board, 'Nach der Welle')).status, 201);
  });

  test('a moderator reopens the door; only accounts after that count', async () => {
    t.board.clock.advance(window);
    for (let i = 1; i <= defaultSurgeAccounts; i++) await registration(t.board, `Zweite ${i}`);
    assert.equal((await registration(t.board, 'Zweite 31')).status, 202);
    const reopened = await t.members.Mia.post('/api/mod/registration', { mode: 'open' });
    assert.deepEqual(reopened.body, { mode: 'open' });
    const state = (await t.members.Mia.get('/api/mod/registration')).body;
    assert.deepEqual([state.mode, state.set_by], ['open', 'config']);
    assert.equal(
      (await registration(t.board, 'Handverlesen')).status,
      201,
      'the wave before the decision no longer counts',
    );
    assertError(await t.members.Mia.post('/api/mod/registration', { mode: 'zu' }), 400, 'input.invalid', 'mode');
  });
});

test('the threshold follows BOARD_LIMITS and 0 turns the gate off', () => {
  const config = (env: Record<string, string>) => loadConfig({ BOARD_DATA: '/tmp/unused', ...env });
  assert.equal(surgeThreshold(config({})), 30);
  assert.equal(surgeThreshold(config({ BOARD_LIMITS: '0.5' })), 15);
  assert.equal(surgeThreshold(config({ BOARD_LIMITS: '0' })), 0);
  assert.equal(surgeThreshold(config({ BOARD_REGISTRATION_SURGE: '0' })), 0);
  assert.equal(surgeThreshold(config({ BOARD_REGISTRATION_SURGE: '100' })), 100);
});
