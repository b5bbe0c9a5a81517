import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { remoteStatus } from '../../lib/accounts/users.ts';
import { usernameKey } from '../../lib/text/usernames.ts';
import { moderator, password, runAdminHere, startBoard, visitor, type TestBoard } from '../helpers.ts';
import { quickHashes } from '../helpers/quick-hashes.ts';

/**
 * docs/API.md "Remote entries": the users rows of authors on other servers (status 'remote') are
 * no accounts of this board wherever the board counts or lists its own accounts: the surge gate,
 * the first account's trust, the applications' signals, and board-admin's reset links and
 * moderator role. The rows are stored as lib/federation/remote-entries.ts remoteAuthorUid stores
 * them (this is about the surfaces, not the inbox).
 */

function storeRemoteAuthor(board: TestBoard, handle: string): number {
  const { lastInsertRowid } = board.app.services.db.run(
    `INSERT INTO users (username, username_key, pass_hash, created_at, status, trust_set) VALUES (?, ?, '', ?, ?, 0)`,
    handle,
    usernameKey(handle),
    board.clock.now(),
    remoteStatus,
  );
  return Number(lastInsertRowid);
}

const register = (board: TestBoard, user: string, fields: Record<string, string> = {}) =>
  visitor(board).post('/api/auth/newuser', { user, pass1: password, pass2: password, ...fields });

describe('remote authors are no accounts of the board', () => {
  const boards: TestBoard[] = [];
  after(async () => {
    for (const board of boards) await board.close();
  });
  const start = async (env: Record<string, string>) => {
    const board = await startBoard({ BOARD_LIMITS: '1', ...env }, { passwords: quickHashes });
    boards.push(board);
    return board;
  };

  test('the first member after remote authors wrote is still the first account', async () => {
    const board = await start({});
    storeRemoteAuthor(board, '@nora@social.example');
    assert.equal((await register(board, 'Erste')).status, 201);
    const db = board.app.services.db;
    assert.equal(db.value('SELECT trust_set FROM users WHERE username = ?', 'Erste'), 1, "the first account's trust");
  });

  test('authors from other servers arriving are no registration surge', async () => {
    const board = await start({ BOARD_REGISTRATION_SURGE: '2' });
    for (const name of ['nora', 'otto', 'paul']) storeRemoteAuthor(board, `@${name}@social.example`);
    assert.equal((await register(board, 'Erste')).status, 201);
    assert.equal((await register(board, 'Zweite')).status, 201, 'the second still gets in');
    assert.equal((await visitor(board).get('/api/auth/registration')).body.mode, 'open');
    assert.equal((await register(board, 'Dritte')).status, 202, 'the third of the members is the surge');
  });

  test("an application's signals count the accounts that registered, not the authors who answered", async () => {
    const board = await start({});
    const mia = await moderator(board, 'Mia');
    const approval = await mia.post('/api/mod/registration', { mode: 'approval' });
    assert.equal(approval.status, 200, approval.text);
    board.clock.advance(7200);
    for (const name of ['nora', 'otto']) storeRemoteAuthor(board, `@${name}@social.example`);
    const applied = await register(board, 'Erika', {
      application: 'Ich lese hier seit Wochen mit und möchte mitreden.',
    });
    assert.equal(applied.status, 202, applied.text);
    const [application] = (await mia.get('/api/mod/applications/0')).body;
    assert.equal(application.username, 'Erika');
    assert.equal(application.same_minute, 1);
    assert.equal(application.same_hour, 1);
  });

  test('board-admin gives an author on another server no reset link and no moderator role', async () => {
    const board = await start({});
    storeRemoteAuthor(board, '@nora@social.example');
    for (const args of [
      ['reset-link', '@nora@social.example'],
      ['mod', 'add', '@nora@social.example'],
    ]) {
      const run = await runAdminHere(board, args);
      assert.equal(run.code, 1, `${args.join(' ')}: ${run.stdout}`);
      assert.match(run.stderr, /@nora@social\.example is an author on another server/);
    }
    const db = board.app.services.db;
    assert.equal(db.value('SELECT count(*) FROM reset_links'), 0);
    assert.equal(db.value("SELECT role FROM users WHERE username = '@nora@social.example'"), '');
  });
});
