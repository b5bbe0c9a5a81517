import type { Context, KvStore } from '@fedify/fedify';
import {
  Article,
  Create,
  Group,
  Note,
  Page,
  isActor,
  type Activity,
  type Announce,
  type Delete,
  type Object as ApObject,
  type Update,
} from '@fedify/fedify/vocab';
import type { Clock } from '../clock.ts';
import type { Log } from '../log.ts';
import { maxFetchedAncestors } from '../product.ts';
import { boardIdentifier } from './handles.ts';
import { instanceAdmitted, instanceOf } from './instances.ts';
import { actorUri } from './objects.ts';
import { deleteRemoteEntry, editRemoteEntry } from './remote-edits.ts';
import { entryNamed, isKnownObject, takeRemotePost, type RemoteDeps } from './remote-entries.ts';
import { fetchRemoteImage, postImageUrl, remoteAuthorWithAvatar, type RemoteMediaDeps } from './remote-media.ts';
import { removeMedia } from '../media/files.ts';

/**
 * Posts from other servers as the inbox meets them (docs/API.md "Remote entries"): a `Create` of a
 * reply or of a post to the board's Group, a Group's `Announce` of one, a reply whose parent the
 * board does not have (its ancestors fetched up a bounded chain), and the author's `Update` and
 * `Delete`. Each post passes the same checks whichever way it came: its author is the actor that
 * sent it (or, relayed, the one it names), its id on its author's server, that server admitted.
 */

export interface InboundDeps extends RemoteDeps, Omit<RemoteMediaDeps, 'config'> {
  clock: Clock;
  log: Log;
  kv: KvStore;
}

type Post = Note | Article | Page;

const postOf = (object: unknown): Post | undefined =>
  object instanceof Note || object instanceof Article || object instanceof Page ? object : undefined;

export const quietly = <T>(ctx: Context<T>) => ({
  documentLoader: ctx.documentLoader,
  contextLoader: ctx.contextLoader,
  suppressError: true,
});

/**
 * Whether `actorId` is a Group (a Lemmy community, a NodeBB category), looked up aside: an
 * activity's own getActor would keep the fetched actor inside the activity as it is handed on.
 */
export async function isGroupActor<T>(ctx: Context<T>, actorId: URL | null): Promise<boolean> {
  return actorId !== null && (await ctx.lookupObject(actorId.href).catch(() => null)) instanceof Group;
}

export async function actorUid<T>(deps: InboundDeps, ctx: Context<T>, actorId: URL): Promise<number | undefined> {
  const actor = await ctx.lookupObject(actorId.href).catch(() => null);
  if (!isActor(actor) || actor.id?.href !== actorId.href || !actor.inboxId) return undefined;
  return remoteAuthorWithAvatar(deps, actor, ctx, deps.clock.now());
}

function addressedToBoard(deps: InboundDeps, post: Post): boolean {
  const group = actorUri(deps.config.origin, boardIdentifier).href;
  return [...post.toIds, ...post.ccIds, ...post.audienceIds].some((id) => id.href === group);
}

/** Whether `author` may have written `post`: it says so, and both are on one admitted server. */
function ownPost(deps: InboundDeps, post: Post, author: URL): boolean {
  return (
    post.id !== null &&
    post.attributionId?.href === author.href &&
    instanceOf(post.id) === instanceOf(author) &&
    instanceAdmitted(deps.db, deps.config.federation, instanceOf(author))
  );
}

/** A `Create` of a post; false when the post is none of the board's (the caller's to ignore). */
export async function receiveCreate<T>(deps: InboundDeps, ctx: Context<T>, create: Create): Promise<boolean> {
  const post = postOf(await create.getObject(quietly(ctx)));
  if (!post || !create.actorId) return false;
  return receivePost(deps, ctx, post, create.actorId);
}

/**
 * A Group's `Announce` of a `Create` or of the post (Lemmy's communities, NodeBB's categories): the
 * post as if its author had sent it, so it is one entry. A relayed copy from another server is
 * fetched from there (Fedify trusts none), so nothing from a server not admitted is read.
 */
export async function receiveGroupAnnounce<T>(
  deps: InboundDeps,
  ctx: Context<T>,
  announce: Announce,
): Promise<boolean> {
  const object = await announce.getObject(quietly(ctx));
  if (object instanceof Create) {
    const post = postOf(await object.getObject(quietly(ctx)));
    return post !== undefined && object.actorId !== null && receivePost(deps, ctx, post, object.actorId);
  }
  const post = postOf(object);
  return post?.attributionId ? receivePost(deps, ctx, post, post.attributionId) : false;
}

/**
 * A post by `author`: a reply to an entry the board has, a reply below one (its missing ancestors
 * fetched first, up to maxFetchedAncestors), or a top-level post to the board's Group; false when
 * it is none of these (a post elsewhere that a follow brought).
 */
async function receivePost<T>(deps: InboundDeps, ctx: Context<T>, post: Post, author: URL): Promise<boolean> {
  const parent = post.replyTargetId;
  if (!parent && !addressedToBoard(deps, post)) return false;
  if (!ownPost(deps, post, author)) {
    dropped(deps, post, 'not its author’s');
    return true;
  }
  if (parent && entryNamed(deps.db, deps.config.origin, parent.href) === undefined) {
    const ancestors = await missingAncestors(deps, ctx, parent);
    if (!ancestors) {
      dropped(deps, post, 'no board entry up its chain');
      return false;
    }
    for (const ancestor of ancestors) await takePost(deps, ctx, ancestor, ancestor.attributionId!);
  }
  await takePost(deps, ctx, post, author);
  return true;
}

/**
 * The ancestors of a reply the board lacks, oldest first, up to the first that replies to a board
 * entry (or is itself a post to the Group); undefined when none is reached within the bound. Why a
 * bound: each is a fetch from another server, and a chain of any length could be made to order.
 */
async function missingAncestors<T>(deps: InboundDeps, ctx: Context<T>, first: URL): Promise<Post[] | undefined> {
  const chain: Post[] = [];
  for (let target = first; chain.length < maxFetchedAncestors; ) {
    const post = postOf(await ctx.lookupObject(target.href).catch(() => null));
    if (!post?.attributionId || !ownPost(deps, post, post.attributionId)) return undefined;
    chain.push(post);
    const parent = post.replyTargetId;
    if (!parent) return addressedToBoard(deps, post) ? chain.reverse() : undefined;
    if (entryNamed(deps.db, deps.config.origin, parent.href) !== undefined) return chain.reverse();
    target = parent;
  }
  return undefined;
}

async function takePost<T>(deps: InboundDeps, ctx: Context<T>, post: Post, author: URL): Promise<void> {
  const uid = await actorUid(deps, ctx, author);
  if (uid === undefined) return dropped(deps, post, 'no actor');
  // Fetched before the write, never inside its transaction; once: not for a post the board keeps already.
  const imageUrl = isKnownObject(deps.db, post.id!.href) ? undefined : await postImageUrl(post, ctx);
  const image = imageUrl ? await fetchRemoteImage(deps, imageUrl, 'entry') : '';
  const taken = takeRemotePost(
    deps,
    { uid, actorId: author.href },
    { objectId: post.id!.href, url: urlOf(post), html: String(post.content ?? ''), ...parts(post), image },
    deps.clock.now(),
  );
  if (image && !('pid' in taken && taken.filepath === image)) await removeMedia(deps.config, [image], deps.log);
  if ('dropped' in taken) dropped(deps, post, taken.dropped);
}

function urlOf(post: Post): string {
  return post.url instanceof URL ? post.url.href : (post.url?.href?.href ?? post.id!.href);
}

function parts(post: Post): { title?: string; inReplyTo?: string } {
  return {
    ...(post instanceof Note || post.name === null ? {} : { title: String(post.name) }),
    ...(post.replyTargetId ? { inReplyTo: post.replyTargetId.href } : {}),
  };
}

export async function receiveUpdate<T>(deps: InboundDeps, ctx: Context<T>, update: Update): Promise<boolean> {
  const post = postOf(await update.getObject(quietly(ctx)));
  if (!post?.id || !update.actorId) return false;
  if (post.attributionId?.href !== update.actorId.href) {
    dropped(deps, post, 'not its author’s');
    return true;
  }
  const { title } = parts(post);
  const edited = editRemoteEntry(
    deps,
    update.actorId.href,
    { objectId: post.id.href, html: String(post.content ?? ''), title },
    deps.clock.now(),
  );
  if ('dropped' in edited && edited.dropped !== 'unknown') dropped(deps, post, edited.dropped);
  return !('dropped' in edited && edited.dropped === 'unknown');
}

export async function receiveDelete(deps: InboundDeps, remove: Delete): Promise<boolean> {
  const objectId = remove.objectId;
  if (!objectId || !remove.actorId) return false;
  const deleted = await deleteRemoteEntry(deps, remove.actorId.href, objectId.href, deps.clock.now());
  if ('dropped' in deleted && deleted.dropped !== 'unknown') dropped(deps, remove, deleted.dropped);
  return !('dropped' in deleted && deleted.dropped === 'unknown');
}

function dropped(deps: InboundDeps, what: ApObject | Activity, why: string): void {
  deps.log(`federation inbox: ${what.id?.href ?? 'an object without id'} dropped: ${why}`);
}
