import type { Actor } from '@fedify/fedify/vocab';
import { accountStanding } from '../accounts/standing.ts';
import { remoteStatus } from '../accounts/users.ts';
import { usernameKey } from '../text/usernames.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { judgeEntryContent } from '../entries/content-gate.ts';
import { createEntry, findLiveEntry } from '../entries/entries.ts';
import { ApiError } from '../errors.ts';
import type { LimitStore } from '../limits/rate-limit.ts';
import { maxReplyDepth } from '../product.ts';
import { rememberActor } from './follows.ts';
import { instanceOf } from './instances.ts';
import { remoteWriterAdmitted } from './remote-standing.ts';
import { remoteText } from './remote-text.ts';

/**
 * Answers from other servers (docs/API.md "Remote entries"). A remote author is a users row with
 * status 'remote': entries, votes, bans, removals, notifications and counts work by uid as for a
 * member, while every surface that shows an account as a member (profiles, WebFinger, mentions,
 * the board's own actors and deliveries) asks isPublicAccount, which a remote row never is, and it
 * cannot log in. Its username is its handle `@name@host`, which no member's name can be (no `@`).
 * A remote actor starts at trust level 0, pinned there until a moderator sets it.
 */

export interface RemoteDeps {
  db: Db;
  config: Config;
  limits: LimitStore;
}

/** The users row of a remote actor, made the first time it writes; the actor is remembered (refreshed) either way. */
export function remoteAuthorUid(db: Db, actor: Actor, now: number): number {
  return db.tx(() => {
    rememberActor(db, actor, now);
    const id = actor.id!.href;
    const known = db.value<number>('SELECT uid FROM remote_actors WHERE id = ?', id);
    if (known) return known;
    const name = String(actor.preferredUsername ?? '').slice(0, 100);
    const handle = /^[^\s@]+$/.test(name) ? `@${name}@${instanceOf(id)}` : id;
    // A second actor with the same handle (an account made anew there) is named by its id.
    const username = db.one('SELECT 1 FROM users WHERE username_key = ?', usernameKey(handle)) ? id : handle;
    const { lastInsertRowid: uid } = db.run(
      `INSERT INTO users (username, username_key, pass_hash, created_at, status, trust_set) VALUES (?, ?, '', ?, ?, 0)`,
      username,
      usernameKey(username),
      now,
      remoteStatus,
    );
    db.run('UPDATE remote_actors SET uid = ? WHERE id = ?', Number(uid), id);
    return Number(uid);
  });
}

export interface RemotePost {
  objectId: string;
  url: string;
  html: string;
  inReplyTo: string;
}

/** The board entry an `inReplyTo` names: one of its pages (/e/{pid}), or a remote entry it keeps. */
export function entryNamed(db: Db, origin: string, target: string): number | undefined {
  const own = new URL(origin);
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return undefined;
  }
  const pid = url.origin === own.origin ? /^\/e\/(\d{1,15})$/.exec(url.pathname)?.[1] : undefined;
  if (pid) return Number(pid);
  return db.one<{ pid: number }>('SELECT pid FROM remote_entries WHERE object_id = ?', target)?.pid;
}

/**
 * Takes a remote reply through the entry gate as its author's level-0 entry, or drops it (returns
 * why). The ban and the block are checked again in the transaction that writes, so one that came meanwhile holds;
 * an object already kept (a Group's Announce of the same Create) is the same entry.
 */
export function takeRemoteReply(
  deps: RemoteDeps,
  author: { uid: number; actorId: string },
  post: RemotePost,
  now: number,
): { pid: number } | { dropped: string } {
  const { db, config } = deps;
  const parentPid = entryNamed(db, config.origin, post.inReplyTo);
  const parent = parentPid ? findLiveEntry(db, parentPid) : undefined;
  if (!parent) return { dropped: 'no such entry' };
  if (parent.depth + 1 > maxReplyDepth) return { dropped: 'too deep' };
  const { text } = remoteText(post.html, post.url, new URL(config.origin).host);
  try {
    const standing = accountStanding(db, author.uid, config, now);
    const judged = judgeEntryContent(deps, { uid: author.uid, standing }, { content: text, image: false }, now);
    return db.tx(() => {
      if (db.one('SELECT 1 FROM remote_entries WHERE object_id = ?', post.objectId)) return { dropped: 'known' };
      if (!remoteWriterAdmitted(db, config, author.actorId, now)) return { dropped: 'banned or blocked' };
      judged.checkInWrite(db);
      const pid = createEntry(
        db,
        { uid: author.uid, content: judged.content, filepath: '', replyTo: parent.pid, parent, link: judged.link },
        now,
      );
      if (pid === undefined) return { dropped: 'no such entry' };
      db.run(
        'INSERT INTO remote_entries (pid, object_id, actor_id, host, url) VALUES (?, ?, ?, ?, ?)',
        pid,
        post.objectId,
        author.actorId,
        instanceOf(author.actorId),
        post.url,
      );
      return { pid };
    });
  } catch (err) {
    if (err instanceof ApiError) return { dropped: err.code };
    throw err;
  }
}

/**
 * The board's own live entries: the statistics' count less the live remote ones. Why: NodeInfo's
 * localPosts and the Group's outbox speak of what this board's people wrote; what others wrote
 * here is counted by their own servers.
 */
export function countLocalEntries(db: Db, allLive: number): number {
  return (
    allLive -
    db.value<number>('SELECT count(*) FROM remote_entries r JOIN entries e ON e.pid = r.pid WHERE e.deleted = 0')
  );
}
