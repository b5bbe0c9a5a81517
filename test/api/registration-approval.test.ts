import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { defaultRegistrationQuestion } from '../../lib/config.ts';
import { deleteExpiredRejections } from '../../lib/registration/applications.ts';
import {
  assertDocumented,
  assertError,
  day,
  eventually,
  modlogRows,
  password,
  passwordGate,
  startProxiedBoard,
  uidOf,
  useBoard,
  useBoardWithWebhook,
  visitor,
  type TestBoard,
} from '../helpers.ts';
import { byClass, drawnPage, textOf } from '../helpers/pages.ts';

/**
 * docs/API.md "Registration": in approval mode a registration with an answer to the
 * question answers 202 pending, the name is taken, login says auth.pending until a moderator
 * decides; a rejection shows its reason at login for 30 days, then the account goes. Default limits.
 */

const answer = 'Ich lese hier seit Wochen mit und möchte mitdiskutieren.';

function applyFrom(board: TestBoard, user: string, fields: Record<string, string> = { application: answer }) {
  return visitor(board).post('/api/auth/newuser', { user, pass1: password, pass2: password, ...fields });
}

function loginAs(board: TestBoard, user: string, pass = password) {
  return visitor(board).post('/api/auth/login', { user, pass });
}

function statusOf(board: TestBoard, user: string): string | undefined {
  return board.app.services.db.one<{ status: string }>('SELECT status FROM users WHERE username = ?', user)?.status;
}

describe('a board set to BOARD_REGISTRATION=approval', () => {
  const t = useBoardWithWebhook({
    env: { BOARD_REGISTRATION: 'approval', BOARD_ORIGIN: 'https://b.example' },
  });

  test('GET /api/auth/registration names the mode and the German default question', async () => {
    const info = await visitor(t.board).get('/api/auth/registration');
    assert.equal(info.status, 200);
    assert.deepEqual(info.body, { mode: 'approval', question: defaultRegistrationQuestion, pow: false });
    assertDocumented(info);
  });

  test('a registration without an answer, or with one under 10 characters, is 400 with error.fields.application', async () => {
    for (const fields of [{}, { application: 'kurz' }, { application: ' '.repeat(20) }] as Record<string, string>[]) {
      const refused = await applyFrom(t.board, 'Ohne Antwort', fields);
      assertError(refused, 400, 'auth.invalid');
      assert.deepEqual(Object.keys(refused.body.error.fields), ['application']);
    }
    assert.equal(statusOf(t.board, 'Ohne Antwort'), undefined, 'no account');
  });

  test('an application answers 202 pending, takes the name, and the webhook says that one waits', async () => {
    const applied = await applyFrom(t.board, 'Paula');
    assert.equal(applied.status, 202, applied.text);
    assert.deepEqual(applied.body, { username: 'Paula', status: 'pending' });
    assertDocumented(applied);
    assert.equal(statusOf(t.board, 'Paula'), 'pending');
    assertError(await visitor(t.board).get('/api/u/Paula/info'), 404, 'user.not_found', { note: 'not public yet' });
    assertError(await applyFrom(t.board, 'paula'), 409, 'user.name_taken');
    await eventually('the webhook message', () => t.webhookBodies.length > 0);
    assert.equal(t.webhookBodies[0], 'Ein neuer Antrag wartet auf die Freischaltung. https://b.example/mod');
  });

  test('login of a pending account with the right password is 403 auth.pending; a wrong one stays 401', async () => {
    await applyFrom(t.board, 'Wartende');
    assertError(await loginAs(t.board, 'Wartende'), 403, 'auth.pending');
    assertError(await loginAs(t.board, 'Wartende', 'falsches Passwort'), 401, 'auth.bad_credentials');
    const sessions = t.board.app.services.db.one<{ n: number }>(
      'SELECT count(*) AS n FROM sessions WHERE uid = ?',
      uidOf(t.board, 'Wartende'),
    )!.n;
    assert.equal(sessions, 0);
  });
});

describe('moderators decide applications', () => {
  const t = useBoard({ members: ['Olga'], moderators: ['Mia'] });

  test('a moderator switches the board to approval; the queue lists applications oldest first with signals', async () => {
    const set = await t.members.Mia.post('/api/mod/registration', { mode: 'approval' });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body, { mode: 'approval' });
    assertDocumented(set);
    assert.equal((await visitor(t.board).get('/api/auth/registration')).body.mode, 'approval');
    assert.equal(modlogRows(t.board)[0]!.action, 'registration');
    assert.equal((await applyFrom(t.board, 'Erste')).status, 202);
    assert.equal((await applyFrom(t.board, 'Zweite')).status, 202);
    const queue = await t.members.Mia.get('/api/mod/applications/0');
    assert.equal(queue.status, 200);
    assertDocumented(queue);
    assert.deepEqual(
      queue.body.map((a: { username: string }) => a.username),
      ['Erste', 'Zweite'],
    );
    assert.equal(queue.body[0].application, answer);
    assert.ok(queue.body[1].same_minute >= 2, 'both came in the same minute');
    assert.equal(JSON.stringify(queue.body).includes('10.'), false, 'no address anywhere');
    assertError(await t.members.Olga.get('/api/mod/applications/0'), 403, 'mod.required');
  });

  test('an approved account logs in; the public log names it, not the application', async () => {
    const approved = await t.members.Mia.post('/api/mod/applications/Erste/approve');
    assert.equal(approved.status, 200, approved.text);
    assert.deepEqual(approved.body, { username: 'Erste', status: 'approved' });
    assert.equal((await loginAs(t.board, 'Erste')).status, 200);
    const log = await visitor(t.board).get('/api/modlog/0');
    const row = log.body.find((r: { action: string }) => r.action === 'approve');
    assert.equal(row.username, 'Erste');
    assert.equal(JSON.stringify(log.body).includes(answer), false);
    assertError(await t.members.Mia.post('/api/mod/applications/Erste/approve'), 404, 'application.not_found');
    assertError(await t.members.Mia.post('/api/mod/applications/Niemand/approve'), 404, 'user.not_found');
  });

  test('a rejected account sees the reason at login (403 auth.rejected), for 30 days; then the name is free', async () => {
    const rejected = await t.members.Mia.post('/api/mod/applications/Zweite/reject', { reason: 'Bitte mit Antwort.' });
    assert.equal(rejected.status, 200, rejected.text);
    const login = await loginAs(t.board, 'Zweite');
    assertError(login, 403, 'auth.rejected');
    assert.equal(login.body.reason, 'Bitte mit Antwort.');
    assert.equal(
      JSON.stringify(modlogRows(t.board)).includes('Bitte mit Antwort.'),
      false,
      'the reason is for the applicant',
    );
    await applyFrom(t.board, 'Dritte');
    await t.members.Mia.post('/api/mod/applications/Dritte/reject');
    assert.equal((await loginAs(t.board, 'Dritte')).body.reason, '', 'no reason given: ""');

    const { db } = t.board.app.services;
    assert.equal(deleteExpiredRejections(db, t.board.clock.now() + 29 * day), 0, 'kept for 30 days');
    assert.equal(deleteExpiredRejections(db, t.board.clock.now() + 30 * day), 2);
    assert.equal(statusOf(t.board, 'Zweite'), undefined);
    assert.equal((await applyFrom(t.board, 'Zweite')).status, 202, 'the name is free again');
  });

  test('an approve racing a reject: exactly one decides', async () => {
    await applyFrom(t.board, 'Umkämpft');
    const [a, b] = await Promise.all([
      t.members.Mia.post('/api/mod/applications/Umkämpft/approve'),
      t.members.Mia.post('/api/mod/applications/Umkämpft/reject', { reason: 'nein' }),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 404]);
    const status = statusOf(t.board, 'Umkämpft');
    assert.equal(status, a.status === 200 ? '' : 'rejected');
  });

  test('a reason over 500 characters is 400; a non-moderator cannot decide', async () => {
    await applyFrom(t.board, 'Geduldig');
    assertError(
      await t.members.Mia.post('/api/mod/applications/Geduldig/reject', { reason: 'x'.repeat(501) }),
      400,
      'input.invalid',
      'reason',
    );
    assertError(await t.members.Olga.post('/api/mod/applications/Geduldig/approve'), 403, 'mod.required');
    assert.equal(statusOf(t.board, 'Geduldig'), 'pending');
  });

  test('the drawn /modlog says every decision in German: a mode by its German name, approvals and rejections; no raw action or mode', async () => {
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'invite' })).status, 200);
    const log = await drawnPage(t.board, '/modlog');
    const rows = log.all(byClass('modlog-row')).map(textOf);
    assert.match(rows[0]!, /^Registrierung auf „nur mit Einladung“ umgestellt/, 'the newest first');
    assert.ok(rows.some((r) => r.startsWith('Registrierung auf „mit Freischaltung“ umgestellt')));
    assert.ok(rows.some((r) => r.startsWith('Konto Erste freigeschaltet')));
    assert.ok(
      rows.some((r) => r.startsWith('Antrag von einem Konto abgelehnt')),
      'a rejected account gone after 30 days',
    );
    assert.doesNotMatch(log.main, /\b(registration|approve|reject|approval|invite|open)\b/, 'no raw word');
    assert.equal(log.all(byClass('modlog-reason')).length, 0, 'a mode set by hand has no reason beyond the mode');
  });
});

describe('a closed board', () => {
  test('registration is 403 auth.registration_closed; GET /api/auth/registration says closed', async () => {
    const board = await startProxiedBoard({ BOARD_REGISTRATION: 'closed' });
    try {
      assert.deepEqual((await visitor(board).get('/api/auth/registration')).body, {
        mode: 'closed',
        question: '',
        pow: false,
      });
      assertError(await applyFrom(board, 'Zu spät'), 403, 'auth.registration_closed');
    } finally {
      await board.close();
    }
  });
});

describe('a registration in flight while the door changes', () => {
  const gate = passwordGate();
  const t = useBoard({ start: { passwords: gate.passwords }, moderators: ['Mia'] });
  afterEach(() => gate.releaseAll());

  test('admitted in open mode, written after the switch to approval: it waits (202), it does not slip in', async () => {
    const held = gate.holdNext('hash');
    const registering = applyFrom(t.board, 'Im Flug', {});
    await held.reachedBy(registering); // checked in open mode; its password is hashed, nothing written yet
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'approval' })).status, 200);
    held.release();
    const answer = await registering;
    assert.equal(answer.status, 202, answer.text);
    assert.equal(statusOf(t.board, 'Im Flug'), 'pending');
  });

  test('written after the door closed: 403 auth.registration_closed and no account', async () => {
    const held = gate.holdNext('hash');
    const registering = applyFrom(t.board, 'Zu spät dran');
    await held.reachedBy(registering);
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'closed' })).status, 200);
    held.release();
    assertError(await registering, 403, 'auth.registration_closed');
    assert.equal(statusOf(t.board, 'Zu spät dran'), undefined);
  });
});
