import type { Context } from '@fedify/fedify';
import { Activity, Delete, Dislike, Like, Undo, Update, type Announce } from '@fedify/fedify/vocab';
import { quietly, receiveDelete, receiveGroupAnnounce, receiveUpdate, type InboundDeps } from './inbound-posts.ts';
import { receiveReaction, receiveUndoReaction, unfetched } from './inbound-votes.ts';
import { instanceOf } from './instances.ts';

/**
 * What a Group relays (docs/API.md "Remote entries"): a Lemmy community wraps every activity in it
 * in an `Announce` of its own (FEP-1b12), so a member's vote, its `Undo`, an `Update` or a `Delete`
 * of a post reaches the board from the community's server. Each is handled as the same activity
 * from its own actor would be, through the same functions, every gate applied to that actor. Posts
 * and their `Create`s keep their own way (inbound-posts.ts receiveGroupAnnounce).
 */

const relayedTypes = [Like, Dislike, Undo, Update, Delete];

const isRelayed = (object: unknown): object is Activity => relayedTypes.some((type) => object instanceof type);

/**
 * A Group's `Announce` (the caller checked the actor is one); false when it relays nothing the
 * board reads. One level only: an `Announce` inside is no vote, no share and is not unwrapped.
 */
export async function receiveRelayed<T>(deps: InboundDeps, ctx: Context<T>, announce: Announce): Promise<boolean> {
  const embedded = await announce.getObject({ ...quietly(ctx), documentLoader: unfetched, crossOrigin: 'trust' });
  if (!isRelayed(embedded)) return receiveGroupAnnounce(deps, ctx, announce);
  const activity = await believedActivity(ctx, announce, embedded);
  if (!activity) {
    deps.log(`federation inbox: ${embedded.id?.href ?? 'a relayed activity'} dropped: not its actor’s`);
    return true;
  }
  if (activity instanceof Undo) return receiveUndoReaction(deps, ctx, activity);
  if (activity instanceof Update) return receiveUpdate(deps, ctx, activity);
  if (activity instanceof Delete) return receiveDelete(deps, activity);
  return receiveReaction(deps, ctx, activity);
}

/**
 * The relayed activity as far as the board may believe it: a server speaks for its own accounts
 * only, so one from elsewhere than the Group's host is fetched from its own server (never one not
 * admitted) and taken only with the same type and actor, on that actor's host.
 */
async function believedActivity<T>(
  ctx: Context<T>,
  announce: Announce,
  embedded: Activity,
): Promise<Activity | undefined> {
  const { id, actorId } = embedded;
  const group = announce.actorId;
  if (!id || !actorId || !group) return undefined;
  const groupHost = instanceOf(group);
  if (instanceOf(id) === groupHost && instanceOf(actorId) === groupHost) return embedded;
  const fetched = await ctx.lookupObject(id.href).catch(() => null);
  if (!(fetched instanceof embedded.constructor) || !(fetched instanceof Activity)) return undefined;
  if (fetched.id?.href !== id.href || fetched.actorId?.href !== actorId.href) return undefined;
  return instanceOf(actorId) === instanceOf(id) ? fetched : undefined;
}
