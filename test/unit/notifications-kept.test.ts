import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openDb, type Db } from '../../lib/db/db.ts';
import {
  deleteNotificationsOf,
  maxKeptPerAccount,
  notifyAbout,
  trimGroup,
} from '../../lib/notifications/notifications.ts';
import { migrate, schemaVersion } from '../../lib/db/schema.ts';
import { emptyFolder } from '../helpers.ts';

/**
 * lib/notifications/notifications.ts: each account keeps its newest 1000 notifications (up to 1099 before the
 * oldest go in one group), counted in notification_counts by triggers (lib/db/schema.ts migration
 * 11), whichever path inserts or deletes.
 */

/** The migration before the counts ("// 11: how many notifications each account keeps"). */
const beforeCounts = 10;
const told = 1;
const replier = 2;
const other = 3;

async function withBoard(run: (db: Db) => void): Promise<void> {
  const db = openDb(join(emptyFolder('board-kept-'), 'board.db'));
  try {
    for (const uid of [told, replier, other]) {
      db.run(
        'INSERT INTO users (uid, username, username_key, pass_hash, created_at) VALUES (?, ?, ?, ?, 0)',
        uid,
        `u${uid}`,
        `u${uid}`,
        'x',
      );
    }
    run(db);
  } finally {
    await db.close();
  }
}

/** Replies by `from` to an entry of `told`, with pids first, first + 1, … */
function replies(db: Db, from: number, first: number, count: number): void {
  db.tx(() => {
    for (let pid = first; pid < first + count; pid++)
      notifyAbout(db, { pid, uid: from, content: 'Antwort' }, told, pid);
  });
}

const keptPids = (db: Db, uid: number) =>
  db.all<{ pid: number }>('SELECT pid FROM notifications WHERE uid = ? ORDER BY id', uid).map((r) => r.pid);
const counted = (db: Db, uid: number) =>
  db.one<{ kept: number }>('SELECT kept FROM notification_counts WHERE uid = ?', uid)?.kept;

test('an account keeps its newest 1000 notifications: past 1099 the oldest go in one group down to 1000, and the count stays exact', () =>
  withBoard((db) => {
    replies(db, replier, 1, maxKeptPerAccount);
    assert.equal(keptPids(db, told).length, maxKeptPerAccount);
    assert.equal(counted(db, told), maxKeptPerAccount);

    // Up to 99 past the limit nothing goes: a deletion per notification cost more than the insert.
    replies(db, replier, maxKeptPerAccount + 1, trimGroup - 1);
    assert.equal(keptPids(db, told).length, maxKeptPerAccount + trimGroup - 1);
    assert.equal(keptPids(db, told)[0], 1);
    assert.equal(counted(db, told), maxKeptPerAccount + trimGroup - 1);

    // The 1100th takes the 100 oldest with it.
    replies(db, replier, maxKeptPerAccount + trimGroup, 1);
    let kept = keptPids(db, told);
    assert.equal(kept.length, maxKeptPerAccount);
    assert.equal(kept[0], trimGroup + 1, 'the 100 oldest went');
    assert.equal(kept.at(-1), maxKeptPerAccount + trimGroup);
    assert.equal(counted(db, told), maxKeptPerAccount);

    // The next one starts the next group.
    replies(db, replier, maxKeptPerAccount + trimGroup + 1, 1);
    kept = keptPids(db, told);
    assert.equal(kept.length, maxKeptPerAccount + 1);
    assert.equal(kept[0], trimGroup + 1);
    assert.equal(counted(db, told), maxKeptPerAccount + 1);
    assert.equal(keptPids(db, replier).length, 0, 'the replier was told nothing');
  }));

/** The entries rows behind replies(): an account deletion finds what its entries caused through them. */
function entriesOf(db: Db, uid: number, first: number, count: number): void {
  for (let pid = first; pid < first + count; pid++) {
    db.run(
      'INSERT INTO entries (pid, uid, created_at, root, depth, last_activity) VALUES (?, ?, 0, ?, 0, 0)',
      pid,
      uid,
      pid,
    );
  }
}

test('deleting notifications by any path (an account deletion of the actor) lowers the count; an account with none has no row', () =>
  withBoard((db) => {
    entriesOf(db, replier, 1, 10);
    entriesOf(db, other, 11, 5);
    replies(db, replier, 1, 10);
    replies(db, other, 11, 5);
    assert.equal(counted(db, told), 15);
    deleteNotificationsOf(db, replier);
    assert.equal(counted(db, told), 5);
    assert.deepEqual(keptPids(db, told), [11, 12, 13, 14, 15]);
    deleteNotificationsOf(db, told);
    assert.equal(counted(db, told), undefined);
    assert.equal(db.value('SELECT count(*) FROM notification_counts'), 0);
  }));

test('the migration counts the notifications a board already has', () => {
  const raw = new Database(':memory:');
  migrate(raw, beforeCounts);
  const insert = raw.prepare(
    "INSERT INTO notifications (uid, pid, actor_uid, kind, created_at) VALUES (?, ?, 2, 'reply', 0)",
  );
  for (let pid = 1; pid <= 7; pid++) insert.run(told, pid);
  insert.run(other, 8);
  migrate(raw);
  assert.equal(raw.pragma('user_version', { simple: true }), schemaVersion);
  assert.deepEqual(raw.prepare('SELECT uid, kept FROM notification_counts ORDER BY uid').all(), [
    { uid: told, kept: 7 },
    { uid: other, kept: 1 },
  ]);
  raw.close();
});

test('migration 12 drops the index by author: every create wrote a page of it, and deletion finds those rows through entries', () => {
  const raw = new Database(':memory:');
  migrate(raw, 11);
  const indexes = () => (raw.pragma('index_list(notifications)') as { name: string }[]).map((i) => i.name).sort();
  assert.ok(indexes().includes('notifications_by_actor'));
  migrate(raw, 12); // what migration 12 left; later ones may add indexes of their own
  assert.deepEqual(indexes(), [
    'notifications_by_entry',
    'notifications_by_uid',
    'notifications_unread',
    'sqlite_autoindex_notifications_1',
  ]);
  raw.close();
});
