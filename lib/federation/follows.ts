import { randomBytes } from 'node:crypto';
import type { Actor, Follow } from '@fedify/fedify/vocab';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { remoteWriterAdmitted } from './remote-standing.ts';
import { instanceOf } from './instances.ts';
import { queueOutbox } from './outbox.ts';

/**
 * Follows from other servers (docs/API.md "Federation"): a Follow of the Group or of a person is
 * accepted at once (the board is public, so there is nothing to approve) and kept with the
 * follower's inboxes; an Undo of it ends it. The remote actor is kept in remote_actors, the table
 * the board's reading of other servers' answers will use too.
 */

export function rememberActor(db: Db, actor: Actor, now: number): void {
  const id = actor.id!.href;
  db.run(
    `INSERT INTO remote_actors (id, host, handle, name, inbox, shared_inbox, url, fetched_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET handle = excluded.handle, name = excluded.name, inbox = excluded.inbox,
       shared_inbox = excluded.shared_inbox, url = excluded.url, fetched_at = excluded.fetched_at`,
    id,
    instanceOf(id),
    String(actor.preferredUsername ?? '').slice(0, 200),
    String(actor.name ?? '').slice(0, 200),
    actor.inboxId!.href,
    actor.endpoints?.sharedInbox?.href ?? '',
    actor.url instanceof URL ? actor.url.href : (actor.url?.href?.href ?? ''),
    now,
  );
}

/**
 * Stores the follow and queues its Accept, in one transaction: a follow kept without its Accept
 * would leave the other server waiting forever. A second Follow of the same pair (a retry) is
 * accepted again, so a server that lost the first Accept gets another. False when the actor may not.
 */
export function acceptFollow(
  db: Db,
  config: Config,
  follow: { follow: Follow; actor: Actor; targetUid: number },
  now: number,
): boolean {
  const { actor, targetUid } = follow;
  const followId = follow.follow.id?.href ?? `${actor.id!.href}#follow-${targetUid}`;
  return db.tx(() => {
    // A banned author, or one whose server was blocked while the Follow waited, follows nobody here.
    if (!remoteWriterAdmitted(db, config, actor.id!.href, now)) return false;
    rememberActor(db, actor, now);
    db.run(
      `INSERT INTO federation_followers (target_uid, actor_id, follow_id, host, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (target_uid, actor_id) DO UPDATE SET follow_id = excluded.follow_id`,
      targetUid,
      actor.id!.href,
      followId,
      instanceOf(actor.id!),
      now,
    );
    queueOutbox(
      db,
      { kind: 'accept', actorUid: targetUid, detail: { follow: followId, follower: actor.id!.href } },
      now,
    );
    return true;
  });
}

/** Ends a follow (an Undo of it): of this target when known, else every follow with this Follow's id. */
export function endFollow(db: Db, actorId: string, targetUid: number | undefined, followId: string | undefined): void {
  if (targetUid !== undefined)
    db.run('DELETE FROM federation_followers WHERE actor_id = ? AND target_uid = ?', actorId, targetUid);
  else if (followId) db.run('DELETE FROM federation_followers WHERE actor_id = ? AND follow_id = ?', actorId, followId);
}

/**
 * An actor of the board asks to follow a remote actor: kept as not yet accepted, and a Follow
 * queued for the delivery job. The remote actor must be known (rememberActor). What asks: a test
 * board following another (test/api/federation-*.test.ts), later the reading of answers.
 */
export function askToFollow(db: Db, localUid: number, actor: Actor, origin: string, now: number): string {
  const followId = new URL(`/ap/follow/${localUid}/${randomBytes(8).toString('hex')}`, origin).href;
  db.tx(() => {
    rememberActor(db, actor, now);
    db.run(
      `INSERT INTO federation_following (local_uid, actor_id, follow_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (local_uid, actor_id) DO UPDATE SET follow_id = excluded.follow_id, accepted_at = 0`,
      localUid,
      actor.id!.href,
      followId,
      now,
    );
    queueOutbox(db, { kind: 'follow', actorUid: localUid, detail: { target: actor.id!.href, follow: followId } }, now);
  });
  return followId;
}

export function stopFollowing(db: Db, localUid: number, actorId: string, now: number): boolean {
  return db.tx(() => {
    const row = db.one<{ follow_id: string }>(
      'SELECT follow_id FROM federation_following WHERE local_uid = ? AND actor_id = ?',
      localUid,
      actorId,
    );
    if (!row) return false;
    db.run('DELETE FROM federation_following WHERE local_uid = ? AND actor_id = ?', localUid, actorId);
    queueOutbox(db, { kind: 'unfollow', actorUid: localUid, detail: { target: actorId, follow: row.follow_id } }, now);
    return true;
  });
}

export function followAccepted(db: Db, actorId: string, followId: string, now: number): boolean {
  return (
    db.run(
      'UPDATE federation_following SET accepted_at = ? WHERE actor_id = ? AND follow_id = ? AND accepted_at = 0',
      now,
      actorId,
      followId,
    ).changes > 0
  );
}

export function remoteFollowerCount(db: Db, uid: number): number {
  return db.value('SELECT count(*) FROM federation_followers WHERE target_uid = ?', uid);
}
