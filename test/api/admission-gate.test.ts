import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, test } from 'node:test';
import { assertError, password, runAdminHere, uidOf, useBoard, visitor, type TestBoard } from '../helpers.ts';

/**
 * docs/ARCHITECTURE.md "Gates": every way an account comes into being goes through one gate,
 * createAdmittedAccount (lib/registration/admission.ts): a registration at the door (open, with an
 * invite, an application a moderator approves) and the operator's `board-admin user-add`. Each way
 * below meets the gate's rules: a look-alike of a taken name admits nobody, an account counts in
 * /api/stats once it is admitted, only the operator's way (or the first account) starts trusted.
 */

const root = fileURLToPath(new URL('../../', import.meta.url));

function registerAs(board: TestBoard, user: string, extra: Record<string, string> = {}) {
  return visitor(board).post('/api/auth/newuser', { user, pass1: password, pass2: password, ...extra });
}

function stored(board: TestBoard, user: string) {
  return board.app.services.db.one<{ status: string; trust_set: number; invited_by: number }>(
    'SELECT status, trust_set, invited_by FROM users WHERE username = ?',
    user,
  );
}

async function userCount(board: TestBoard): Promise<number> {
  return (await visitor(board).get('/api/stats')).body.users;
}

describe('every way in goes through the admission gate', () => {
  const t = useBoard({ members: ['Ida'], moderators: ['Mia'] });
  let invite = '';
  before(async () => {
    assert.equal((await t.members.Mia.post('/api/mod/user/Ida/trust', { level: 1 })).status, 200);
    const made = await t.members.Ida.post('/api/user/invites');
    assert.equal(made.status, 201, made.text);
    invite = made.body.token;
  });

  test('a look-alike of a taken name admits nobody, whichever way it comes', async () => {
    // "Іda" begins with a Cyrillic І: it renders as "Ida".
    const lookAlike = 'Іda';
    assertError(await registerAs(t.board, lookAlike), 409, 'user.name_taken');
    assertError(await registerAs(t.board, lookAlike, { invite }), 409, 'user.name_taken');
    const byHand = await runAdminHere(t.board, ['user-add', lookAlike, '-q']);
    assert.equal(byHand.code, 1);
    assert.match(byHand.stderr, /is taken/);
    assert.equal(t.board.app.services.db.one('SELECT 1 FROM users WHERE username = ?', lookAlike), undefined);
  });

  test('open, invited, approved and by hand: each account is stored as the gate says and counted once admitted', async () => {
    const before = await userCount(t.board);
    assert.equal((await registerAs(t.board, 'Offen Gekommen')).status, 201);
    assert.equal((await registerAs(t.board, 'Eingeladen', { invite })).status, 201);
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'approval' })).status, 200);
    const application = 'Ich lese hier seit Jahren mit und möchte nun auch schreiben.';
    assert.equal((await registerAs(t.board, 'Wartet Noch', { application })).status, 202);
    assert.equal(await userCount(t.board), before + 2, 'an application is not counted before it is approved');
    assert.equal((await t.members.Mia.post('/api/mod/applications/Wartet%20Noch/approve')).status, 200);
    assert.equal((await t.members.Mia.post('/api/mod/registration', { mode: 'closed' })).status, 200);
    assertError(await registerAs(t.board, 'Zu Spaet'), 403, 'auth.registration_closed');
    const byHand = await runAdminHere(t.board, ['user-add', 'Von Hand', '-q']);
    assert.equal(byHand.code, 0, byHand.stderr);
    assert.equal(await userCount(t.board), before + 4);

    assert.deepEqual(stored(t.board, 'Offen Gekommen'), { status: '', trust_set: -1, invited_by: 0 });
    assert.deepEqual(stored(t.board, 'Eingeladen'), { status: '', trust_set: -1, invited_by: uidOf(t.board, 'Ida') });
    assert.deepEqual(stored(t.board, 'Wartet Noch'), { status: '', trust_set: -1, invited_by: 0 });
    assert.deepEqual(stored(t.board, 'Von Hand'), { status: '', trust_set: 1, invited_by: 0 }, 'the operator trusts');
    assert.equal(stored(t.board, 'Zu Spaet'), undefined);
  });

  test('no code in lib/ or bin/ creates an account beside the gate', () => {
    const callers: string[] = [];
    const walk = (folder: string) => {
      for (const entry of readdirSync(folder, { withFileTypes: true })) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/\.ts$/.test(entry.name) && /\bcreateUser\(/.test(readFileSync(path, 'utf8')))
          callers.push(relative(root, path));
      }
    };
    for (const folder of ['lib', 'bin']) walk(join(root, folder));
    assert.deepEqual(callers.sort(), ['lib/accounts/users.ts', 'lib/registration/admission.ts']);
  });
});
