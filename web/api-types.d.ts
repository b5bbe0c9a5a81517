// Written by lib/openapi/front-end-types.ts from the OpenAPI schemas (lib/openapi/components.ts); do not edit.
// The front end's JSDoc names these as Api.Entry, Api.OwnUser ...
declare namespace Api {
  interface Entry {
    /** entry id */
    pid: number;
    /** user id; 0 for the tombstone of a deleted account */
    uid: number;
    /** creation time */
    created_at: number;
    /** text, at most 1000 characters; "" when deleted */
    content: string;
    /** image path under static/media/ (e/<random>.<ext>); "" when none or deleted */
    filepath: string;
    /** parent pid; 0 for a top-level entry */
    reply_to: number;
    /** direct replies, deleted ones included */
    reply_count: number;
    /** moved by a new reply below and by a bump */
    last_activity: number;
    deleted: 0 | 1;
    bump_count: number;
    /** 0 when never bumped */
    last_bump: number;
    /** author's current name; "" for a tombstone */
    username: string;
    /** author's avatar path under static/media/; "" when none */
    avatar: string;
    /** the author's description of the image, its alt text; only when the entry has an image and it was described */
    alt?: string;
    removed?: 1;
    /** the moderation's public reason (with removed only) */
    removed_reason?: string;
    /** the last edit; only on an entry edited since it was written, never on a deleted one */
    edited_at?: number;
    preview?: Preview;
  }

  interface EntryWithLatest extends Entry {
    latest?: Latest;
  }

  interface Latest {
    entry: Entry;
    /** entries on the path in between, deleted ones included */
    skipped: number;
  }

  interface Preview {
    /** canonical address of the first link */
    url: string;
    kind: "page" | "youtube";
    title: string;
    /** site or channel name */
    site: string;
    /** thumbnail path under static/media/; "" when none */
    thumb: string;
  }

  interface Thread {
    entry: Entry;
    ancestors: Entry[];
    replies: EntryWithLatest[];
    /** ancestors left out between the root and the nearest 99 */
    ancestors_skipped?: number;
  }

  interface VoteTally {
    /** entry id */
    pid: number;
    yes: number;
    no: number;
    selected: "yes" | "no" | "none";
  }

  interface PublicUser {
    /** user id */
    uid: number;
    username: string;
    /** Unix seconds */
    created_at: number;
    /** avatar path under static/media/; "" when none */
    avatar: string;
    /** -1 for a permanent ban, else when it ends (Unix seconds); only while banned */
    banned_until?: number;
    /** while federation is on: @name@host, how to follow the account from another server */
    fediverse?: string;
  }

  interface OwnUser {
    /** user id */
    uid: number;
    username: string;
    /** Unix seconds */
    created_at: number;
    /** avatar path under static/media/; "" when none */
    avatar: string;
    /** 0 until the first login */
    last_login: number;
    role?: "moderator";
    trust_level?: 0 | 1;
  }

  interface Session {
    uid: number;
    /** Unix seconds */
    created_at: number;
    /** Unix seconds */
    expires: number;
    /** the User-Agent at login */
    description: string;
  }

  interface SessionListItem {
    /** opaque session id */
    id: string;
    /** Unix seconds */
    created_at: number;
    /** Unix seconds */
    expires: number;
    /** the User-Agent at login */
    description: string;
    /** a readable German guess at the device */
    device: string;
    current: 0 | 1;
    push?: {
      /** the push service's origin */
      service: string;
      /** Unix seconds */
      created_at: number;
    };
  }

  interface Stats {
    users: number;
    entries: number;
  }

  interface StatsDetail extends Stats {
    toplevel: number;
    replies: number;
    votes: {
      yes: number;
      no: number;
    };
    impressions_total: number;
    visitors_total: number;
    daily: {
      /** UTC day */
      day: string;
      impressions: number;
      visitors: number;
    }[];
    top_asns: {
      /** 0: unknown */
      asn: number;
      name: string;
      visitors: number;
    }[];
  }

  interface QueueItem {
    entry: Entry;
    open_reports: number;
    reports: {
      id: number;
      /** Unix seconds */
      created_at: number;
      reason: string;
      reporter: "";
    }[];
  }

  interface Instance {
    /** the host as its URLs write it, with the port when not the default */
    host: string;
    state: "" | "allowed" | "blocked";
    /** when the decision was made; 0 without one */
    changed_at: number;
    /** its accounts that follow the board or one of its people */
    followers: number;
    /** deliveries waiting for it */
    queued: number;
    /** deliveries it took */
    delivered: number;
    /** deliveries given up after two days of tries */
    failed: number;
    /** the last delivery it took; 0 for none */
    last_delivered: number;
  }

  interface ModlogRow {
    id: number;
    /** Unix seconds */
    created_at: number;
    action: "remove" | "restore" | "ban" | "unban" | "avatar_remove" | "dismiss" | "approve" | "reject" | "registration" | "instance_allow" | "instance_block" | "instance_unblock";
    /** the entry acted on; 0 for actions on accounts */
    pid: number;
    /** the account acted on, by its current name; "" when deleted */
    username: string;
    reason: string;
    /** for ban: banned_until (-1 permanent); else 0 */
    until: number;
  }

  interface Notification {
    /** notification id (for up_to) */
    id: number;
    /** Unix seconds */
    created_at: number;
    kind: "reply" | "mention" | "thread_reply";
    read: 0 | 1;
    entry: Entry;
  }

  interface MutedAccount {
    uid: number;
    username: string;
  }

  interface Application {
    username: string;
    /** Unix seconds */
    created_at: number;
    application: string;
    /** registrations in the same minute */
    same_minute: number;
    /** registrations in the hour before */
    same_hour: number;
  }

  interface RegistrationState {
    mode: "open" | "approval" | "invite" | "closed";
    set_by: "config" | "moderator" | "operator" | "surge";
    /** 0 for the configured mode */
    since: number;
    configured: "open" | "approval" | "invite" | "closed";
    surge: {
      /** 0: off */
      threshold: number;
      /** seconds */
      window: number;
    };
    wave: ({
      username: string;
      /** Unix seconds */
      created_at: number;
      status: "active" | "pending" | "rejected";
      banned: boolean;
    })[];
    last_surge?: {
      /** Unix seconds */
      at: number;
      accounts: number;
    };
  }

  interface RegistrationInfo {
    mode: "open" | "approval" | "invite" | "closed";
    /** approval mode: the question `application` answers; else "" */
    question: string;
    /** registration needs a solved challenge in `altcha` */
    pow: boolean;
  }

  interface NewInvite {
    id: number;
    token: string;
    /** <BOARD_ORIGIN>/register#<token> */
    url: string;
    /** Unix seconds */
    expires: number;
  }

  interface Invite {
    id: number;
    /** Unix seconds */
    created_at: number;
    /** Unix seconds */
    expires: number;
    status: "open" | "used" | "expired" | "revoked";
    /** the account it made, "" until used */
    used_by: string;
    /** 0 until used */
    used_at: number;
  }

  interface InviteList {
    invites: Invite[];
    /** open invites now */
    open: number;
    refusal?: Error;
  }

  interface ModeratedAccount {
    username: string;
    /** Unix seconds */
    created_at: number;
    status: "active" | "pending" | "rejected";
    role: string;
    banned_until: number;
    trust_level: 0 | 1;
    /** "" when none or the administrator */
    invited_by: string;
    invitees: {
      username: string;
      /** Unix seconds */
      created_at: number;
    }[];
    /** accounts a ban with tree=1 takes with it: the invite tree below, without moderators */
    tree_size: number;
  }

  interface PowParameters {
    /** PBKDF2/SHA-256 */
    algorithm: string;
    /** hex */
    nonce: string;
    /** hex */
    salt: string;
    /** PBKDF2 iterations per counter */
    cost: number;
    keyLength: number;
    /** hex: the first half of the key of the counter to find */
    keyPrefix: string;
    /** Unix seconds */
    expiresAt: number;
    data: {
      /** the largest counter it can be */
      max: number;
    };
    keySignature?: string;
  }

  interface PowChallenge {
    parameters: PowParameters;
    /** HMAC of the parameters */
    signature: string;
  }

  interface Error {
    /** stable, <area>.<thing> or internal */
    code: string;
    /** German, for people */
    message: string;
    /** the request field concerned */
    field?: string;
    /** registration only: every bad field with its message */
    fields?: Record<string, string>;
  }
}
