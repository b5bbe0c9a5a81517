import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../lib/http/errors.ts';
import { accountStanding, newAccountCreateShare, refuseLinksWhileNew } from '../../lib/accounts/standing.ts';
import { newAccountLinkDelaySeconds } from '../../lib/limits/product.ts';

/** The rules for new accounts (lib/accounts/standing.ts) from the account's age alone. */
const created = 1_800_000_000;
const board = { limitsFactor: 1, newAccountSeconds: 24 * 3600 };

test('a new account creates at a third of the account limits until BOARD_NEW_ACCOUNT_HOURS have passed', () => {
  assert.equal(accountStanding(created, board, created).createShare, newAccountCreateShare);
  assert.equal(accountStanding(created, board, created + board.newAccountSeconds - 1).createShare, 1 / 3);
  assert.equal(accountStanding(created, board, created + board.newAccountSeconds).createShare, 1);
});

test('links and images wait until the account is ten minutes old, counted down to the second', () => {
  assert.equal(newAccountLinkDelaySeconds, 600);
  assert.equal(accountStanding(created, board, created).linksWait, 600);
  assert.equal(accountStanding(created, board, created + 599).linksWait, 1);
  assert.equal(accountStanding(created, board, created + 600).linksWait, 0);
  assert.equal(accountStanding(created, board, created + 86_400).linksWait, 0);
});

test('BOARD_LIMITS=0 and BOARD_NEW_ACCOUNT_HOURS=0 each turn both rules off', () => {
  for (const config of [
    { limitsFactor: 0, newAccountSeconds: 86_400 },
    { limitsFactor: 1, newAccountSeconds: 0 },
  ])
    assert.deepEqual(accountStanding(created, config, created), { createShare: 1, linksWait: 0 });
});

test('a link too early answers 429 rate.new_account with Retry-After and the minutes left in the message', () => {
  assert.doesNotThrow(() => refuseLinksWhileNew({ createShare: 1, linksWait: 0 }));
  const refusal = (linksWait: number) => {
    try {
      refuseLinksWhileNew({ createShare: 1 / 3, linksWait });
    } catch (err) {
      assert.ok(err instanceof ApiError);
      return err;
    }
    assert.fail('not refused');
  };
  const message = (err: ApiError) => (err.body() as { error: { message: string } }).error.message;
  const early = refusal(541);
  assert.equal(early.status, 429);
  assert.equal(early.code, 'rate.new_account');
  assert.deepEqual(early.options.headers, { 'Retry-After': '541' });
  assert.match(message(early), /in den ersten 10 Minuten .* Das geht in 10 Minuten\.$/);
  assert.match(message(refusal(59)), /Das geht in einer Minute\.$/);
});
