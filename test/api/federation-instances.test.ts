import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  assertDocumented,
  assertError,
  moderator,
  modlogRows,
  runAdminHere,
  startBoard,
  visitor,
  type Client,
  type TestBoard,
} from '../helpers.ts';

/**
 * docs/OPERATIONS.md "Federation", docs/API.md "Federation": the instance lists at the command line
 * and on /mod, each change in the moderation log; with BOARD_FEDERATION=off the moderators' routes
 * are paths the board does not have.
 */

describe('instance lists with BOARD_FEDERATION=allowlist', () => {
  let board: TestBoard;
  let mod: Client;
  before(async () => {
    board = await startBoard({ BOARD_FEDERATION: 'allowlist' });
    mod = await moderator(board, 'Mia');
  });
  after(() => board.close());

  test('board-admin federation allow, list, block and unblock name the instance as its URLs write it', async () => {
    const allowed = await runAdminHere(board, ['federation', 'allow', 'https://Social.Example/']);
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(allowed.stdout, 'social.example: allowed\n');
    const again = await runAdminHere(board, ['federation', 'allow', 'social.example']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /allowed already/);
    assert.equal((await runAdminHere(board, ['federation', 'block', '127.0.0.1:8443'])).code, 0);
    const list = await runAdminHere(board, ['federation', 'list']);
    assert.match(list.stdout, /^social\.example {2}allowed since .* followers 0 {2}waiting 0/m);
    assert.match(list.stdout, /^127\.0\.0\.1:8443 {2}blocked/m);
    assert.equal((await runAdminHere(board, ['federation', 'unblock', '127.0.0.1:8443'])).code, 0);
    assert.doesNotMatch((await runAdminHere(board, ['federation', 'list'])).stdout, /8443/);
    const rows = modlogRows(board).slice(0, 3);
    assert.deepEqual(
      rows.map((r) => [r.action, r.reason, r.moderator_uid, r.public]),
      [
        ['instance_unblock', '127.0.0.1:8443', 0, 1],
        ['instance_block', '127.0.0.1:8443', 0, 1],
        ['instance_allow', 'social.example', 0, 1],
      ],
    );
  });

  test('a wrong instance or action at the command line is a usage error', async () => {
    for (const args of [
      ['federation', 'allow', 'https://social.example/users/anna'],
      ['federation', 'allow'],
      ['federation', 'ban', 'social.example'],
      ['federation', 'list', 'social.example'],
    ]) {
      const run = await runAdminHere(board, args);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    }
  });

  test('a moderator allows and blocks an instance on /mod, logged with the note', async () => {
    const blocked = await mod.post('/api/mod/federation/instances', {
      instance: 'Spam.Example',
      action: 'block',
      reason: 'Werbung',
    });
    assert.equal(blocked.status, 200);
    assertDocumented(blocked);
    assert.equal(blocked.body.host, 'spam.example');
    assert.equal(blocked.body.state, 'blocked');
    const listed = await mod.get('/api/mod/federation/instances');
    assertDocumented(listed);
    assert.equal(listed.body.mode, 'allowlist');
    assert.deepEqual(
      listed.body.instances.find((row: { host: string }) => row.host === 'spam.example'),
      {
        host: 'spam.example',
        state: 'blocked',
        changed_at: board.clock.now(),
        followers: 0,
        queued: 0,
        delivered: 0,
        failed: 0,
        last_delivered: 0,
      },
    );
    const [row] = modlogRows(board);
    assert.equal(row!.action, 'instance_block');
    assert.equal(row!.reason, 'spam.example: Werbung');
    const log = await visitor(board).get('/api/modlog/0');
    assert.equal(log.body[0].action, 'instance_block');
  });

  test('a bad instance or action answers 400 naming the field; a visitor gets 401', async () => {
    assertError(
      await mod.post('/api/mod/federation/instances', { instance: 'https://a.example/x', action: 'block' }),
      400,
      'input.invalid',
      'instance',
    );
    assertError(
      await mod.post('/api/mod/federation/instances', { instance: 'a.example', action: 'ban' }),
      400,
      'input.invalid',
      'action',
    );
    assertError(await visitor(board).get('/api/mod/federation/instances'), 401, 'auth.required');
  });
});

describe('instance lists with BOARD_FEDERATION=off', () => {
  let board: TestBoard;
  before(async () => {
    board = await startBoard();
  });
  after(() => board.close());

  test("the moderators' instance routes answer 404, as paths the board does not have", async () => {
    const mod = await moderator(board, 'Mia');
    assertError(await mod.get('/api/mod/federation/instances'), 404, 'api.not_found');
    assertError(
      await mod.post('/api/mod/federation/instances', { instance: 'a.example', action: 'block' }),
      404,
      'api.not_found',
    );
    assertError(await visitor(board).get('/api/mod/federation/instances'), 404, 'api.not_found');
  });

  test('the command line sets the lists while federation is off', async () => {
    const run = await runAdminHere(board, ['federation', 'allow', 'social.example']);
    assert.equal(run.code, 0, run.stderr);
  });
});
