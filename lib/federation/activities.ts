import {
  Accept,
  Announce,
  Create,
  Delete,
  Dislike,
  Follow,
  Like,
  PUBLIC_COLLECTION,
  Undo,
  Update,
  type Activity,
} from '@fedify/fedify/vocab';
import { Temporal } from '@js-temporal/polyfill';
import type { Context } from '@fedify/fedify';
import type { Db } from '../db/db.ts';
import { actorUri, boardIdentifier, entryUri, goneNote, noteOf, noteRow, plainJsonLd } from './objects.ts';
import type { OutboxKind } from './outbox.ts';
import type { FederationData } from './runtime.ts';

/**
 * The activities an outbox row becomes (docs/API.md "Federation"), as Mastodon, Lemmy and NodeBB
 * read them. A person's act goes to the person's followers as it is; the Group wraps it in an
 * Announce for the Group's followers (FEP-1b12, as Lemmy's communities do), and a new entry is
 * also announced as the bare Note, which Mastodon shows as a boost (Lemmy does the same for it).
 */

/** Who receives an activity: the followers of these actors (uids, 0 the Group), or these inboxes. */
export type Audience = { followersOf: number[] } | { inboxes: string[] };

export interface BuiltActivity {
  body: Record<string, unknown>;
  signerUid: number;
  /** What it does, for the ban check at delivery (a deletion goes out whatever the signer's standing). */
  kind: OutboxKind;
  audience: Audience;
}

export interface OutboxRow {
  id: number;
  kind: OutboxKind;
  actor_uid: number;
  pid: number;
  detail: string;
  created_at: number;
}

const instant = (seconds: number) => Temporal.Instant.fromEpochMilliseconds(seconds * 1000);

/** A new activity id: on the board's origin (Lemmy checks it is the actor's), unique per outbox row and part. */
const activityId = (origin: string, row: OutboxRow, part: string) => new URL(`/ap/activity/${row.id}/${part}`, origin);

/**
 * The activities of one row, or none (the entry is gone or no longer federates by the time the row
 * is read, or the inbox of a follow's other side is unknown).
 */
export async function activitiesOf(
  db: Db,
  ctx: Context<FederationData>,
  row: OutboxRow,
  now: number,
): Promise<BuiltActivity[]> {
  const origin = ctx.origin;
  const detail = (row.detail ? JSON.parse(row.detail) : {}) as Record<string, string | number | boolean>;
  const actor = actorUri(origin, row.actor_uid === 0 ? boardIdentifier : row.actor_uid);
  const group = actorUri(origin, boardIdentifier);
  const toPublic = {
    tos: [PUBLIC_COLLECTION],
    ccs: [actorUri(origin, row.actor_uid, 'followers'), group],
    published: instant(row.created_at),
  };
  // Fedify's own compact form, made by its generated code (as its actors are answered): a JSON-LD
  // processor's compaction (`format: 'compact'`) costs far more CPU in the process that answers readers.
  const json = async (activity: Activity) =>
    plainJsonLd(await activity.toJsonLd({ contextLoader: ctx.contextLoader })) as Record<string, unknown>;
  const withGroup = async (activity: Activity, kind: OutboxKind): Promise<BuiltActivity[]> => [
    { body: await json(activity), signerUid: row.actor_uid, kind, audience: { followersOf: [row.actor_uid] } },
    {
      body: await json(
        new Announce({
          id: activityId(origin, row, 'announce'),
          actor: group,
          object: activity,
          tos: [PUBLIC_COLLECTION],
          ccs: [actorUri(origin, boardIdentifier, 'followers')],
          published: instant(row.created_at),
        }),
      ),
      signerUid: 0,
      kind,
      audience: { followersOf: [0] },
    },
  ];

  switch (row.kind) {
    case 'create':
    case 'update': {
      const entry = noteRow(db, row.pid, now);
      if (!entry || entry.deleted || !entry.federated) return [];
      const note = noteOf(db, origin, entry);
      const values = { id: activityId(origin, row, row.kind), actor, object: note, ...toPublic };
      const activity = row.kind === 'create' ? new Create(values) : new Update({ ...values, updated: instant(now) });
      const built = await withGroup(activity, row.kind);
      if (row.kind !== 'create') return built;
      // Mastodon reads no Announce of a Create: for it, the Group boosts the Note itself.
      const boost = new Announce({
        id: activityId(origin, row, 'boost'),
        actor: group,
        object: note,
        tos: [PUBLIC_COLLECTION],
        ccs: [actorUri(origin, boardIdentifier, 'followers')],
        published: instant(row.created_at),
      });
      return [...built, { body: await json(boost), signerUid: 0, kind: 'create', audience: { followersOf: [0] } }];
    }
    case 'delete': {
      const gone = goneNote(origin, {
        pid: row.pid,
        removed_at: row.created_at,
        edited_at: 0,
        created_at: row.created_at,
      });
      const activity = new Delete({ id: activityId(origin, row, 'delete'), actor, object: gone, ...toPublic });
      return withGroup(activity, 'delete');
    }
    case 'vote':
    case 'unvote': {
      const vote = voteActivity(origin, row.pid, row.actor_uid, String(detail.mode), Number(detail.at));
      if (row.kind === 'vote') return withGroup(vote, 'vote');
      return withGroup(new Undo({ id: activityId(origin, row, 'undo'), actor, object: vote, ...toPublic }), 'unvote');
    }
    case 'bump': {
      const bump = new Announce({
        id: new URL(`/ap/bump/${row.pid}/${row.actor_uid}/${Number(detail.at)}`, origin),
        actor,
        object: entryUri(origin, row.pid),
        ...toPublic,
      });
      return withGroup(bump, 'bump');
    }
    case 'delete_person': {
      const activity = new Delete({ id: activityId(origin, row, 'delete'), actor, object: actor, ...toPublic });
      return [
        {
          body: await json(activity),
          signerUid: row.actor_uid,
          kind: 'delete_person',
          audience: { followersOf: [row.actor_uid] },
        },
      ];
    }
    case 'accept': {
      const follower = new URL(String(detail.follower));
      const follow = new Follow({ id: new URL(String(detail.follow)), actor: follower, object: actor });
      const accept = new Accept({ id: activityId(origin, row, 'accept'), actor, object: follow, to: follower });
      const inbox = db.one<{ inbox: string }>('SELECT inbox FROM remote_actors WHERE id = ?', follower.href)?.inbox;
      return inbox
        ? [{ body: await json(accept), signerUid: row.actor_uid, kind: 'accept', audience: { inboxes: [inbox] } }]
        : [];
    }
    case 'follow':
    case 'unfollow': {
      const target = new URL(String(detail.target));
      const inbox = db.one<{ inbox: string }>('SELECT inbox FROM remote_actors WHERE id = ?', target.href)?.inbox;
      const asked = new Follow({ id: new URL(String(detail.follow)), actor, object: target, to: target });
      const follow =
        row.kind === 'follow'
          ? asked
          : new Undo({ id: activityId(origin, row, 'undo'), actor, object: asked, to: target });
      return inbox
        ? [{ body: await json(follow), signerUid: row.actor_uid, kind: 'follow', audience: { inboxes: [inbox] } }]
        : [];
    }
  }
}

/** A vote as Lemmy reads one: Like for yes, Dislike for no; its id names the vote, so its Undo names the same. */
function voteActivity(origin: string, pid: number, uid: number, mode: string, at: number): Like | Dislike {
  const values = {
    id: new URL(`/ap/vote/${pid}/${uid}/${mode}/${at}`, origin),
    actor: actorUri(origin, uid),
    object: entryUri(origin, pid),
    tos: [PUBLIC_COLLECTION],
    published: instant(at),
  };
  return mode === 'yes' ? new Like(values) : new Dislike(values);
}
