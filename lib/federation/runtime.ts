import { createFederation, type Context, type Federation, type KvStore } from '@fedify/fedify';
import {
  Accept,
  Activity,
  Announce,
  Create,
  Delete,
  Dislike,
  Flag,
  Follow,
  Like,
  Undo,
  Update,
  type Object as ApObject,
} from '@fedify/fedify/vocab';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/db.ts';
import type { Log } from '../log.ts';
import {
  createPreviewClient,
  type GuardedClient,
  type PreviewClientOptions,
  type Resolver,
} from '../outgoing/client.ts';
import { registrationInForce } from '../registration/mode.ts';
import { readStatsSummary } from '../stats/stats.ts';
import { sqliteKvStore, SqliteMessageQueue } from './fedify-store.ts';
import { acceptFollow, endFollow, followAccepted } from './follows.ts';
import type { PendingActivities } from './inbox-door.ts';
import { createInboxPace, type InboxPace, type InboxPaceOptions } from './inbox-pace.ts';
import { instanceAdmitted } from './instances.ts';
import { actorKeyPairs, boardKeyOwner } from './keys.ts';
import { authenticatedLoaderOf, contextLoaderOf, documentLoaderOf, type LoaderContext } from './loaders.ts';
import {
  apPaths,
  boardIdentifier,
  federatedAccount,
  goneActor,
  goneNote,
  groupOf,
  noteOf,
  noteRow,
  personOf,
  plainJsonLd,
} from './objects.ts';
import { uidOfHandle } from './handles.ts';
import { createLimitStore } from '../limits/rate-limit.ts';
import {
  isGroupActor,
  quietly,
  receiveCreate,
  receiveDelete,
  receiveUpdate,
  type InboundDeps,
} from './inbound-posts.ts';
import { receiveReaction, receiveUndoReaction } from './inbound-votes.ts';
import { receiveRelayed } from './inbound-relays.ts';
import type { Images } from '../media/images.ts';
import type { StoredImageKind } from '../media/stored-images.ts';
import { countLocalEntries } from './remote-entries.ts';
import { takeRemoteFlag } from './inbound-flags.ts';
import type { Notifier } from '../outgoing/operator-webhook.ts';

/**
 * Fedify for one board (docs/API.md "Federation"): the actors (the Group `@board@host` and one
 * Person per public account), their keys, WebFinger, NodeInfo 2.1, the followers and outbox
 * collections (counts public, lists not), and the inboxes. What runs where: a request to an inbox
 * is verified (HTTP Signatures, the sender's key fetched through the guard) while the sender
 * waits, then queued in SQLite (lib/federation/fedify-store.ts) and handled by the once-job that
 * runs the queue (lib/jobs/once-jobs.ts `federationInbox`), past the answer. Sending is the
 * board's own delivery job (lib/federation/delivery.ts): Fedify's sendActivity posts with the
 * global fetch, which the address guard cannot reach.
 */

export interface FederationDeps {
  db: Db;
  config: Config;
  clock: Clock;
  log: Log;
  images: Pick<Images, StoredImageKind>;
  /** The operator's webhook, told of reports from other servers (in the process that runs the inbox queue). */
  notifier?: Pick<Notifier, 'send'>;
}

export interface FederationOptions {
  resolve?: Resolver;
  timeoutMs?: number;
  queuePollMs?: number;
  /** Tests: every verified activity the inbox takes but acts on not (a post elsewhere, an unknown type), as JSON-LD. */
  received?: (activity: Record<string, unknown>) => void;
  inboxPace?: InboxPaceOptions;
}

export type FederationData = Omit<FederationDeps, 'images'>;

export interface FederationRuntime {
  federation: Federation<FederationData>;
  context(): Context<FederationData>;
  /**
   * The JSON-LD answers of an entry's page (/e/{pid}; undefined when there is no such entry) and of a
   * profile page (/u/{name}: the Person, as its actor URI answers it).
   */
  entryAnswer(pid: number): Promise<Response | undefined>;
  actorAnswer(uid: number): Promise<Response>;
  client: GuardedClient;
  /** The settings `client` was made from, but its resolver: what another thread needs to make its own. */
  clientOptions: Omit<PreviewClientOptions, 'resolve'>;
  kv: KvStore;
  /** The inbox door's activities pending verification (lib/federation/inbox-door.ts), this process's. */
  inboxPending: PendingActivities;
  /** Its held refusals and verification turns (lib/federation/inbox-pace.ts), this process's. */
  inboxPace: InboxPace;
  close(): Promise<void>;
}

/** How the rest of the board reaches federation: the runtime is made (and Fedify loaded) on first use. */
export interface FederationHandle {
  runtime(): Promise<FederationRuntime>;
}

/** The User-Agent of every request federation makes: the software and the board, never a reader. */
export const federationUserAgent = (origin: string) => `board/0.1 (+${origin})`;

export const activityJsonType = 'application/activity+json';

export function createFederationRuntime(deps: FederationDeps, options: FederationOptions = {}): FederationRuntime {
  const { db, config, clock } = deps;
  const kv = sqliteKvStore(db);
  const limits = createLimitStore(db);
  const clientOptions = {
    allow: config.previewAllow,
    ports: config.previewPorts,
    userAgent: federationUserAgent(config.origin),
    timeoutMs: options.timeoutMs,
    httpOnlyInsideAllow: true,
  };
  const client = createPreviewClient({ ...clientOptions, resolve: options.resolve });
  // The board's own documents (its actors, named in an Accept of its own Follow) are always readable.
  const ownHost = new URL(config.origin).host;
  const loaders: LoaderContext = {
    client,
    kv,
    admitted: (host) => host === ownHost || instanceAdmitted(db, config.federation, host),
  };
  const federation = createFederation<FederationData>({
    kv,
    origin: config.origin,
    queue: { inbox: new SqliteMessageQueue(db, { pollMs: options.queuePollMs }) },
    manuallyStartQueue: true,
    documentLoaderFactory: () => documentLoaderOf(loaders),
    contextLoaderFactory: () => contextLoaderOf(loaders),
    authenticatedDocumentLoaderFactory: (identity) => authenticatedLoaderOf(loaders, identity),
    // The double knock is the delivery job's (lib/federation/delivery.ts); this is what Fedify signs with itself.
    firstKnock: 'rfc9421',
  });

  /** The key owner of an actor identifier: 0 for the Group, the uid of a public account, else none. */
  const ownerOf = (identifier: string): number | undefined => {
    if (identifier === boardIdentifier) return boardKeyOwner;
    if (!/^\d{1,15}$/.test(identifier)) return undefined;
    return federatedAccount(db, Number(identifier)) ? Number(identifier) : undefined;
  };

  federation
    .setActorDispatcher(apPaths.actor, async (ctx, identifier) => {
      const owner = ownerOf(identifier);
      if (owner === undefined)
        return deletedAccount(db, identifier) ? goneActor(config.origin, Number(identifier), clock.now()) : null;
      const pairs = await ctx.getActorKeyPairs(identifier);
      const keys = { publicKey: pairs[0]!.cryptographicKey, assertionMethods: pairs.map((pair) => pair.multikey) };
      if (owner === boardKeyOwner) return groupOf(config, keys);
      return personOf(config, federatedAccount(db, owner)!, keys);
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => {
      const owner = ownerOf(identifier);
      return owner === undefined ? [] : actorKeyPairs(db, owner, clock.now());
    })
    .mapHandle((_ctx, handle) => {
      if (handle.toLowerCase() === boardIdentifier) return boardIdentifier;
      const uid = uidOfHandle(db, handle);
      return uid === undefined ? null : String(uid);
    });

  // Counts are public (Mastodon shows them); the lists are not: whom an account is followed by is its own business.
  federation
    .setFollowersDispatcher(apPaths.followers, () => ({ items: [] }))
    .setCounter((_ctx, identifier) => {
      const owner = ownerOf(identifier);
      return owner === undefined
        ? null
        : db.value('SELECT count(*) FROM federation_followers WHERE target_uid = ?', owner);
    });
  federation
    .setOutboxDispatcher(apPaths.outbox, () => ({ items: [] }))
    .setCounter((_ctx, identifier) => {
      const owner = ownerOf(identifier);
      if (owner === undefined) return null;
      return owner === boardKeyOwner
        ? countLocalEntries(db, readStatsSummary(db).entries)
        : db.value('SELECT count(*) FROM entries WHERE uid = ? AND deleted = 0', owner);
    });

  federation.setNodeInfoDispatcher('/nodeinfo/2.1', () => {
    const stats = readStatsSummary(db);
    return {
      software: { name: 'board', version: '0.1.0' },
      protocols: ['activitypub'],
      openRegistrations: registrationInForce(db, config).mode === 'open',
      // The statistics' members count has no remote authors (lib/accounts/users.ts remoteStatus).
      usage: { users: { total: stats.users }, localPosts: countLocalEntries(db, stats.entries), localComments: 0 },
    };
  });

  const inbound: InboundDeps = { db, config, clock, log: deps.log, limits, kv, client, images: deps.images };
  federation
    .setInboxListeners(apPaths.inbox, apPaths.sharedInbox)
    .on(Follow, async (ctx, follow) => {
      const actorId = follow.actorId;
      if (!actorId || !instanceAdmitted(db, config.federation, actorId.host)) return;
      const target = ctx.parseUri(follow.objectId);
      if (target?.type !== 'actor') return;
      const owner = ownerOf(target.identifier);
      if (owner === undefined) return;
      const actor = await follow.getActor(ctx);
      if (!actor?.id || !actor.inboxId) return;
      if (!acceptFollow(db, config, { follow, actor, targetUid: owner }, clock.now()))
        deps.log(`federation inbox: ${follow.id?.href ?? 'a Follow'} dropped: banned or blocked`);
    })
    // The Accept names our own Follow: read its id as given, never fetched (it is ours).
    .on(Accept, (_ctx, accept) => {
      if (accept.actorId && accept.objectId) followAccepted(db, accept.actorId.href, accept.objectId.href, clock.now());
    })
    .on(Undo, async (ctx, undo) => {
      if (await receiveUndoReaction(inbound, ctx, undo)) return;
      const object = (await undo.getObject(quietly(ctx))) as ApObject | null;
      if (!(object instanceof Follow)) return receivedOther(undo);
      if (!undo.actorId || object.actorId?.href !== undo.actorId.href) return;
      const target = ctx.parseUri(object.objectId);
      const owner = target?.type === 'actor' ? ownerOf(target.identifier) : undefined;
      endFollow(db, undo.actorId.href, owner, object.id?.href);
    })
    .on(Create, async (ctx, create) => {
      if (!(await receiveCreate(inbound, ctx, create))) await receivedOther(create);
    })
    .on(Announce, async (ctx, announce) => {
      if (await receiveReaction(inbound, ctx, announce)) return;
      const relayed = (await isGroupActor(ctx, announce.actorId)) && (await receiveRelayed(inbound, ctx, announce));
      if (!relayed) await receivedOther(announce);
    })
    .on(Like, async (ctx, like) => {
      if (!(await receiveReaction(inbound, ctx, like))) await receivedOther(like);
    })
    .on(Dislike, async (ctx, dislike) => {
      if (!(await receiveReaction(inbound, ctx, dislike))) await receivedOther(dislike);
    })
    .on(Update, async (ctx, update) => {
      if (!(await receiveUpdate(inbound, ctx, update))) await receivedOther(update);
    })
    .on(Delete, async (_ctx, remove) => {
      if (!(await receiveDelete(inbound, remove))) await receivedOther(remove);
    })
    .on(Flag, (_ctx, flag) => {
      if (!flag.actorId || !instanceAdmitted(db, config.federation, flag.actorId.host)) return;
      const comment = String(flag.content ?? flag.summary ?? '');
      const objectIds = flag.objectIds.map((id) => id.href);
      const filed = takeRemoteFlag(
        { db, config, limits, notifier: deps.notifier },
        { actorId: flag.actorId.href, objectIds, comment },
        clock.now(),
      );
      if (!filed) deps.log(`federation inbox: ${flag.id?.href ?? 'a Flag'} filed no report`);
    })
    .on(Activity, (_ctx, activity) => receivedOther(activity))
    .onError((_ctx, error) => deps.log(`federation inbox: ${error.message}`));

  async function receivedOther(activity: Activity): Promise<void> {
    if (options.received) options.received((await activity.toJsonLd({ format: 'compact' })) as Record<string, unknown>);
  }

  const context = () => federation.createContext(new URL(config.origin), deps);

  return {
    federation,
    context,
    client,
    clientOptions,
    kv,
    inboxPending: new Map(),
    inboxPace: createInboxPace(options.inboxPace),
    async entryAnswer(pid) {
      const row = noteRow(db, pid, clock.now());
      if (!row) return undefined;
      const ctx = context();
      if (row.deleted || !row.federated) return jsonLd(await goneNote(config.origin, row).toJsonLd(ctx), 410);
      return jsonLd(plainJsonLd(await noteOf(db, config.origin, row).toJsonLd(ctx)), 200);
    },
    async actorAnswer(uid) {
      return federation.fetch(
        new Request(new URL(apPaths.actor.replace('{identifier}', String(uid)), config.origin), {
          headers: { accept: activityJsonType },
        }),
        { contextData: deps },
      );
    },
    async close() {
      await client.close();
    },
  };
}

/** A uid the board gave out whose account is gone: its actor is a Tombstone (410), so followers drop it. */
function deletedAccount(db: Db, identifier: string): boolean {
  if (!/^\d{1,15}$/.test(identifier)) return false;
  const uid = Number(identifier);
  const last = db.one<{ seq: number }>("SELECT seq FROM sqlite_sequence WHERE name = 'users'")?.seq ?? 0;
  return uid >= 1 && uid <= last && db.one('SELECT 1 FROM users WHERE uid = ?', uid) === undefined;
}

function jsonLd(body: unknown, status: number): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': activityJsonType, Vary: 'Accept' },
  });
}
