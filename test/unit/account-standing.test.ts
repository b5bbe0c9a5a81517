import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { accountStanding, newAccountCreateShare, unrestricted } from '../../lib/accounts/standing.ts';
import { trustAfter } from '../../lib/accounts/trust.ts';
import { moderatorRole } from '../../lib/accounts/users.ts';
import { openDb } from '../../lib/db/db.ts';
import { refuseLinksWhileNew } from '../../lib/entries/content-gate.ts';
import { ApiError } from '../../lib/errors.ts';
import { newAccountLinkDelaySeconds } from '../../lib/product.ts';

/** The standing of an account (lib/accounts/standing.ts): the rules for new accounts and the trust level, from its row. */
const created = 1_800_000_000;
const board = { limitsFactor: 1, newAccountSeconds: 24 * 3600 };
const db = openDb(':memory:');
after(() => db.close());

let accounts = 0;
/** An account created at `created`; role and trust_set as given. */
function account(fields: { role?: string; trust_set?: number } = {}): number {
  accounts++;
  return db.run(
    'INSERT INTO users (username, username_key, pass_hash, created_at, role, trust_set) VALUES (?, ?, ?, ?, ?, ?)',
    `u${accounts}`,
    `u${accounts}`,
    'x',
    created,
    fields.role ?? '',
    fields.trust_set ?? -1,
  ).lastInsertRowid;
}

test('a new account creates at a third of the account limits until BOARD_NEW_ACCOUNT_HOURS have passed', () => {
  const uid = account();
  assert.equal(accountStanding(db, uid, board, created).createShare, newAccountCreateShare);
  assert.equal(accountStanding(db, uid, board, created + board.newAccountSeconds - 1).createShare, 1 / 3);
  assert.equal(accountStanding(db, uid, board, created + board.newAccountSeconds).createShare, 1);
});

test('links and images wait until the account is ten minutes old, counted down to the second', () => {
  const uid = account();
  assert.equal(newAccountLinkDelaySeconds, 600);
  assert.equal(accountStanding(db, uid, board, created).linksWait, 600);
  assert.equal(accountStanding(db, uid, board, created + 599).linksWait, 1);
  assert.equal(accountStanding(db, uid, board, created + 600).linksWait, 0);
  assert.equal(accountStanding(db, uid, board, created + 86_400).linksWait, 0);
});

test('level 0 until the account is old enough and has enough live entries', () => {
  const uid = account();
  const old = created + trustAfter.seconds;
  assert.equal(accountStanding(db, uid, board, created).levelZero, true);
  assert.equal(accountStanding(db, uid, board, old).levelZero, true, 'old, but no entries');
  for (let i = 0; i < trustAfter.liveEntries; i++)
    db.run(
      'INSERT INTO entries (uid, created_at, content, filepath, reply_to, root, depth, last_activity, link) VALUES (?, ?, ?, ?, 0, 0, 0, ?, ?)',
      uid,
      created,
      `Beitrag ${i}`,
      '',
      created,
      '',
    );
  assert.equal(accountStanding(db, uid, board, old - 1).levelZero, true, 'entries, but not old enough');
  assert.deepEqual(accountStanding(db, uid, board, old), { createShare: 1, linksWait: 0, levelZero: false });
});

test('an account that starts trusted has no restriction; a level 0 set by a moderator has every one, at any age', () => {
  for (const trusted of [account({ trust_set: 1 }), account({ role: moderatorRole })])
    assert.deepEqual(accountStanding(db, trusted, board, created), unrestricted);
  const demoted = account({ trust_set: 0 });
  assert.deepEqual(accountStanding(db, demoted, board, created), {
    createShare: newAccountCreateShare,
    linksWait: 600,
    levelZero: true,
  });
  assert.deepEqual(accountStanding(db, demoted, board, created + 10 * trustAfter.seconds), {
    createShare: newAccountCreateShare,
    linksWait: 0,
    levelZero: true,
  });
});

test('BOARD_LIMITS=0 and BOARD_NEW_ACCOUNT_HOURS=0 each turn every rule off', () => {
  const uid = account({ trust_set: 0 });
  for (const config of [
    { limitsFactor: 0, newAccountSeconds: 86_400 },
    { limitsFactor: 1, newAccountSeconds: 0 },
  ])
    assert.deepEqual(accountStanding(db, uid, config, created), { createShare: 1, linksWait: 0, levelZero: false });
});

test('a link too early answers 429 rate.new_account with Retry-After and the minutes left in the message', () => {
  assert.doesNotThrow(() => refuseLinksWhileNew(unrestricted));
  const refusal = (linksWait: number) => {
    try {
      refuseLinksWhileNew({ createShare: 1 / 3, linksWait, levelZero: true });
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
