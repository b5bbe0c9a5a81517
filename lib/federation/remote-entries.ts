import type { Actor } from '@fedify/fedify/vocab';
import { accountStanding } from '../accounts/standing.ts';
import { remoteStatus } from '../accounts/users.ts';
import { usernameKey } from '../text/usernames.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import { judgeEntryContent, type EntryAuthor, type JudgedEntry } from '../entries/content-gate.ts';
import { createEntry, findLiveEntry } from '../entries/entries.ts';
import type { EntryRow } from '../entries/reads.ts';
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

/** A post as the board takes it: `title` an Article's or Page's `name`, no `inReplyTo` on a top-level post. */
export interface RemotePost {
  objectId: string;
  url: string;
  html: string;
  title?: string;
  inReplyTo?: string;
  image?: string;
}

export function isKnownObject(db: Db, objectId: string): boolean {
  return db.one('SELECT 1 FROM remote_entries WHERE object_id = ?', objectId) !== undefined;
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
 * Takes a remote post (a reply, or top-level without a parent) through the entry gate as its
 * author's level-0 entry, or drops it (returns why). The ban and the block are checked again in the
 * transaction that writes; an object already kept (a Group's Announce of it) is the same entry.
 */
export function takeRemotePost(
  deps: RemoteDeps,
  author: { uid: number; actorId: string },
  post: RemotePost,
  now: number,
): { pid: number; filepath: string } | { dropped: string } {
  const { db, config } = deps;
  let parent: EntryRow | undefined;
  if (post.inReplyTo !== undefined) {
    const parentPid = entryNamed(db, config.origin, post.inReplyTo);
    parent = parentPid ? findLiveEntry(db, parentPid) : undefined;
    if (!parent) return { dropped: 'no such entry' };
    if (parent.depth + 1 > maxReplyDepth) return { dropped: 'too deep' };
  }
  const { text } = remoteText(post.html, post.url, new URL(config.origin).host, post.title);
  try {
    const standing = accountStanding(db, author.uid, config, now);
    const { judged, filepath } = judgeWithImage(deps, { uid: author.uid, standing }, text, post.image ?? '', now);
    return db.tx(() => {
      if (isKnownObject(db, post.objectId)) return { dropped: 'known' };
      if (!remoteWriterAdmitted(db, config, author.actorId, now)) return { dropped: 'banned or blocked' };
      judged.checkInWrite(db);
      const pid = createEntry(
        db,
        {
          uid: author.uid,
          content: judged.content,
          filepath,
          replyTo: parent?.pid ?? 0,
          parent,
          link: judged.link,
        },
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
      return { pid, filepath };
    });
  } catch (err) {
    if (err instanceof ApiError) return { dropped: err.code };
    throw err;
  }
}

/**
 * The gate's verdict on a remote post with its image. An image the gate refuses (a new author's,
 * or beyond level 0's day) is left out and the text judged alone: the answer still belongs in the
 * thread, as its text.
 */
function judgeWithImage(
  deps: RemoteDeps,
  author: EntryAuthor,
  text: string,
  image: string,
  now: number,
): { judged: JudgedEntry; filepath: string } {
  if (image) {
    try {
      return { judged: judgeEntryContent(deps, author, { content: text, image: true }, now), filepath: image };
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'rate.new_account')) throw err;
    }
  }
  return { judged: judgeEntryContent(deps, author, { content: text, image: false }, now), filepath: '' };
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
