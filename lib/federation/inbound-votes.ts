import type { Context } from '@fedify/fedify';
import { Announce, Dislike, Like, type Activity, type Undo } from '@fedify/fedify/vocab';
import type { Db } from '../db/db.ts';
import { findLiveEntry } from '../entries/entries.ts';
import { setVote, voteOf, type VoteMode } from '../entries/votes.ts';
import { actorUid, isGroupActor, quietly, type InboundDeps } from './inbound-posts.ts';
import { instanceAdmitted } from './instances.ts';
import { entryNamed } from './remote-entries.ts';
import { remoteWriterAdmitted } from './remote-standing.ts';

/**
 * What remote actors do to the board's entries (docs/API.md "Votes and shares from elsewhere"): a
 * `Like` is a yes vote, a `Dislike` a no vote, through the same write as a member's vote, one per
 * actor and entry; an `Announce` by anyone but a Group is a share, one per actor and entry. Each is
 * remembered by its activity's id, so an `Undo` naming only that id (or embedding it) withdraws it.
 */

export type Reaction = VoteMode | 'share';

const kindOf = (reaction: Reaction) => (reaction === 'share' ? 'share' : 'vote');

type Outcome = { pid: number } | { dropped: string };

/**
 * Takes a vote or a share by `uid` of the entry `objectId` names; a later one of the same kind
 * replaces it (a Dislike turned into a Like), and an id used again names the new act. The ban is
 * checked in the write, as for a post.
 */
export function takeReaction(
  deps: InboundDeps,
  uid: number,
  reaction: { activityId: string; objectId: string; kind: Reaction },
  now: number,
): Outcome {
  const { db } = deps;
  const pid = entryNamed(db, deps.config.origin, reaction.objectId);
  if (pid === undefined) return { dropped: 'no such entry' };
  const kind = kindOf(reaction.kind);
  return db.tx(() => {
    const entry = findLiveEntry(db, pid);
    if (!entry) return { dropped: 'no such entry' };
    if (!remoteWriterAdmitted(db, deps.config, uid, now)) return { dropped: 'banned or blocked' };
    db.run(
      'DELETE FROM remote_reactions WHERE activity_id = ? OR (kind = ? AND pid = ? AND uid = ?)',
      reaction.activityId,
      kind,
      pid,
      uid,
    );
    db.run(
      'INSERT INTO remote_reactions (activity_id, kind, pid, uid, created_at) VALUES (?, ?, ?, ?, ?)',
      reaction.activityId,
      kind,
      pid,
      uid,
      now,
    );
    if (reaction.kind === 'share') db.changes.threadChanged(entry.root);
    else setVote(db, pid, uid, reaction.kind, now);
    return { pid };
  });
}

/**
 * Withdraws what `uid` did by the activity `activityId`; when the board knows no such id, what the
 * embedded activity says (its kind and entry), if the actor's vote there is of that mode.
 */
export function withdrawReaction(
  deps: InboundDeps,
  uid: number,
  activityId: string | undefined,
  embedded: { kind: Reaction; objectId: string } | undefined,
  now: number,
): Outcome {
  const { db } = deps;
  return db.tx(() => {
    if (!remoteWriterAdmitted(db, deps.config, uid, now)) return { dropped: 'banned or blocked' };
    const byId =
      activityId === undefined
        ? undefined
        : db.one<{ kind: string; pid: number }>(
            'SELECT kind, pid FROM remote_reactions WHERE activity_id = ? AND uid = ?',
            activityId,
            uid,
          );
    const known = byId ?? (embedded && reactionNamed(deps, uid, embedded));
    if (!known) return { dropped: 'unknown' };
    db.run('DELETE FROM remote_reactions WHERE kind = ? AND pid = ? AND uid = ?', known.kind, known.pid, uid);
    if (known.kind === 'vote') setVote(db, known.pid, uid, 'none', now);
    else db.changes.threadChanged(findLiveEntry(db, known.pid)?.root ?? known.pid);
    return { pid: known.pid };
  });
}

function reactionNamed(deps: InboundDeps, uid: number, embedded: { kind: Reaction; objectId: string }) {
  const pid = entryNamed(deps.db, deps.config.origin, embedded.objectId);
  if (pid === undefined) return undefined;
  if (embedded.kind === 'share') return shareOf(deps.db, pid, uid) ? { kind: 'share', pid } : undefined;
  return voteOf(deps.db, pid, uid) === embedded.kind ? { kind: 'vote', pid } : undefined;
}

const shareOf = (db: Db, pid: number, uid: number) =>
  db.one("SELECT 1 FROM remote_reactions WHERE kind = 'share' AND pid = ? AND uid = ?", pid, uid) !== undefined;

function reactionOf(activity: unknown): Reaction | undefined {
  if (activity instanceof Like) return 'yes';
  if (activity instanceof Dislike) return 'no';
  if (activity instanceof Announce) return 'share';
  return undefined;
}

/**
 * A `Like`, `Dislike` or `Announce` of one of the board's entries; false when it names none (an
 * Announce of something else is the caller's). A Group's Announce of an entry relays it, no share.
 */
export async function receiveReaction<T>(deps: InboundDeps, ctx: Context<T>, activity: Activity): Promise<boolean> {
  const kind = reactionOf(activity);
  const { actorId, objectId, id } = activity;
  if (!kind || !actorId || !objectId || !id) return false;
  const pid = entryNamed(deps.db, deps.config.origin, objectId.href);
  if (pid === undefined) return false;
  if (!findLiveEntry(deps.db, pid)) return true;
  if (!instanceAdmitted(deps.db, deps.config.federation, actorId.host)) return true;
  if (kind === 'share' && (await isGroupActor(ctx, actorId))) return true;
  const uid = await actorUid(deps, ctx, actorId);
  if (uid === undefined) return true;
  const taken = takeReaction(deps, uid, { activityId: id.href, objectId: objectId.href, kind }, deps.clock.now());
  if ('dropped' in taken) deps.log(`federation inbox: ${id.href} dropped: ${taken.dropped}`);
  return true;
}

/** A loader that never fetches: an object is read only as it came (an Undo's, a relay's: its id, or what it embeds). */
export const unfetched = async (url: string): Promise<never> => {
  throw new Error(`${url}: not fetched`);
};

/**
 * An `Undo` of a vote or a share: false when it is none the board knows (a Follow's is the
 * caller's). It may carry no addressing, and name the activity by its id alone or embed it.
 */
export async function receiveUndoReaction<T>(deps: InboundDeps, ctx: Context<T>, undo: Undo): Promise<boolean> {
  const { actorId, objectId } = undo;
  if (!actorId) return false;
  const uid = deps.db.value<number>('SELECT coalesce(max(uid), 0) FROM remote_actors WHERE id = ?', actorId.href);
  if (!uid) return false;
  const object = await undo.getObject({ ...quietly(ctx), documentLoader: unfetched });
  const kind = reactionOf(object);
  const undone = kind ? (object as Activity) : undefined;
  const embedded =
    kind && undone?.objectId && undone.actorId?.href === actorId.href
      ? { kind, objectId: undone.objectId.href }
      : undefined;
  const withdrawn = withdrawReaction(deps, uid, objectId?.href, embedded, deps.clock.now());
  if (objectId && !('dropped' in withdrawn)) await forgetActivity(deps, ctx, objectId);
  return !('dropped' in withdrawn) || kind !== undefined;
}

/**
 * Forgets that the board handled the activity `id`: Fedify's queue takes an id once a day, and a
 * server may send a Like's id again once it undid it (the key is Fedify's default layout).
 */
async function forgetActivity<T>(deps: InboundDeps, ctx: Context<T>, id: URL): Promise<void> {
  await deps.kv.delete(['_fedify', 'activityIdempotence', ctx.origin, id.href]);
}
