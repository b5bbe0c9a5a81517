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
    /** `created_at` at first; moved to now by a new reply anywhere below and by a bump of the entry or of an entry below; not by edits or votes */
    last_activity: number;
    deleted: 0 | 1;
    /** number of bumps */
    bump_count: number;
    /** 0 when never bumped */
    last_bump: number;
    /** author's current name; "" for a tombstone */
    username: string;
    /** author's current avatar path under static/media/; "" when none */
    avatar: string;
    /** the author's description of the image (at most 300 characters), used as its alt text; only when the entry has an image and its author described it, never on a deleted or removed entry */
    alt?: string;
    /** the moderation removed the entry (then `deleted` is 1 too); absent otherwise */
    removed?: 1;
    /** the moderation's public reason (with removed only) */
    removed_reason?: string;
    /** the last edit; absent on an entry never edited and on a deleted one. The front end shows "bearbeitet" with this time */
    edited_at?: number;
    /** the first link's preview (docs/API.md "Link previews") */
    preview?: Preview;
    /** an entry from another server (docs/API.md "Remote entries"): its author's actor, instance and the entry's page there; then `username` is the handle `@name@host`, which has no profile here */
    remote?: {
      /** the author's actor id */
      actor: string;
      /** the host, with its port when not the default */
      instance: string;
      /** the entry on its own server */
      url: string;
    };
    /** how many accounts on other servers shared (boosted) the entry (docs/API.md "Votes and shares from elsewhere"); absent when none */
    shares?: number;
  }

  interface EntryWithLatest extends Entry {
    /** present when a live entry lies 1 to 50 levels below */
    latest?: Latest;
  }

  interface Latest {
    /** the newest live descendant within 50 levels (highest `created_at`, then highest `pid`), without a `latest` of its own */
    entry: Entry;
    /** entries on the path between the two, deleted ones included; 0 for a direct reply */
    skipped: number;
  }

  interface Preview {
    /** canonical form of the first `http://` or `https://` link in the text (trailing `.,;:!?)]}'"` trimmed): scheme and host lower-case, default port and fragment dropped, otherwise as written (not the redirect target); every video-site form (`youtu.be/ID`, `/watch?v=ID`, `/shorts/ID`, `/embed/ID`, `/live/ID`, `/v/ID`, on `m.`, `music.`, `www.` or `youtube-nocookie.com`) becomes `https://www.youtube.com/watch?v=ID`, other query parameters dropped. A link with a user name or password has no preview */
    url: string;
    /** `youtube` for the video site, `page` for everything else */
    kind: "page" | "youtube";
    /** video site: the oEmbed `title`; pages: `og:title`, else `twitter:title`, else `<title>`; entities decoded, whitespace collapsed, control and bidi-override characters dropped, at most 300 code points */
    title: string;
    /** video site: the oEmbed `author_name` (the channel); pages: `og:site_name`, else the host the page was finally fetched from, without `www.` and port */
    site: string;
    /** `preview/<random>.jpg` under static/media/: a JPEG that fits inside 320×320, never enlarged, made from `og:image` (or the Twitter card image; relative URLs resolved against the page) or the oEmbed `thumbnail_url`; "" when there is none or it could not be fetched or decoded */
    thumb: string;
  }

  interface Thread {
    /** the entry itself, also when it is deleted; without `latest` */
    entry: Entry;
    /** its ancestors, root first (`[]` for a top-level entry), without `latest`: the root and then at most the 99 nearest (overrides SPEC: all ancestors), so an answer stays small however deep the entry lies */
    ancestors: Entry[];
    /** its direct replies, deleted ones included, at most 100 (the most recently active), by `last_activity` descending, then `pid` descending */
    replies: EntryWithLatest[];
    /** present only when ancestors were left out between the root and the nearest 99: how many (an entry 150 levels deep: 50) */
    ancestors_skipped?: number;
  }

  interface VoteTally {
    /** entry id */
    pid: number;
    yes: number;
    no: number;
    /** the session's own vote; `none` without a session or without a vote */
    selected: "yes" | "no" | "none";
  }

  interface PublicUser {
    /** user id */
    uid: number;
    username: string;
    /** when the account was made */
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
    /** when the account was made */
    created_at: number;
    /** avatar path under static/media/; "" when none */
    avatar: string;
    /** 0 until the first login */
    last_login: number;
    /** only for moderators */
    role?: "moderator";
    /** while federation is on: @name@host, how to follow the account from another server */
    fediverse?: string;
    /** the trust level (docs/API.md "Trust levels"): the owner's to know, never in public answers */
    trust_level?: 0 | 1;
  }

  interface Session {
    uid: number;
    /** Unix seconds */
    created_at: number;
    /** Unix seconds */
    expires: number;
    /** the User-Agent at login (its first 200 characters) */
    description: string;
  }

  interface SessionListItem {
    /** opaque: 32 hex characters, random, stored with the session; neither the token nor its hash, and it cannot be turned into either */
    id: string;
    /** when the session began */
    created_at: number;
    /** when it ends */
    expires: number;
    /** the User-Agent at login (its first 200 characters) */
    description: string;
    /** a readable German guess at the device from the User-Agent: `Firefox auf Linux`, `Safari auf iPhone`, `Chrome auf Android`, `curl`, `Unbekanntes Gerät` */
    device: string;
    /** 1 for the session making the request, else 0 */
    current: 0 | 1;
    /** only when the session's browser gets push notifications (docs/API.md "Web Push"): `service` the push service's origin (e.g. `https://fcm.googleapis.com`), never the endpoint's path or the keys */
    push?: {
      /** the push service's origin */
      service: string;
      /** Unix seconds */
      created_at: number;
    };
  }

  interface Stats {
    /** registered accounts */
    users: number;
    /** entries that are not deleted, replies included */
    entries: number;
  }

  interface StatsDetail {
    /** as in Stats */
    users: number;
    /** as in Stats */
    entries: number;
    /** entries that are not deleted, without `reply_to` */
    toplevel: number;
    /** entries that are not deleted, with `reply_to`; toplevel and replies add up to entries */
    replies: number;
    /** votes currently cast on all entries, deleted ones included (a withdrawn vote leaves, a switched one moves; a deleted account's votes leave) */
    votes: {
      yes: number;
      no: number;
    };
    /** page impressions since the board started counting (all time) */
    impressions_total: number;
    /** the sum of the daily visitor counts, all time: someone who comes on three days counts three times */
    visitors_total: number;
    /** always 30 items: the 30 UTC days ending today (today last, oldest first); days without traffic are there with zeros */
    daily: {
      /** the UTC day, YYYY-MM-DD */
      day: string;
      impressions: number;
      visitors: number;
    }[];
    /** at most 10: the autonomous systems (networks) the visitors of the same 30 days came from, most visitors first, ties by lower `asn`; `asn` 0 with `name` "unknown" for private addresses and addresses the data set does not list; `visitors` adds up the daily visitors of that network; `[]` before the first visitor */
    top_asns: {
      /** 0: unknown */
      asn: number;
      name: string;
      visitors: number;
    }[];
  }

  interface QueueItem {
    /** without `latest`; an entry its author deleted after the report shows as deleted */
    entry: Entry;
    /** the full count of open reports */
    open_reports: number;
    /** the open reports, oldest first, at most 50 */
    reports: {
      id: number;
      /** Unix seconds */
      created_at: number;
      reason: string;
      /** always "": the names of reporters stay with the administrator (`board-admin reports`) */
      reporter: "";
      /** the server a report came from (a `Flag`, docs/API.md "Reports from other servers"); "" for one made here */
      instance: string;
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
    /** the account acted on (for remove, restore and dismiss: the entry's author), by its current name; "" when the account has been deleted since */
    username: string;
    /** the action's reason; "" for restore, unban and a dismiss without one */
    reason: string;
    /** for ban: banned_until (-1 permanent); else 0 */
    until: number;
  }

  interface Notification {
    /** notification id (for up_to) */
    id: number;
    /** Unix seconds */
    created_at: number;
    /** `thread_reply`: a reply in a followed thread (docs/API.md "Following threads") */
    kind: "reply" | "mention" | "thread_reply";
    read: 0 | 1;
    /** the entry that replies or mentions, without `latest` */
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
    /** `operator`: a mode set with `board-admin registration` */
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
    /** the accounts created in the window before the surge gate's last switch */
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
    /** <BOARD_ORIGIN>/register#<token>: the token only in the fragment, as in reset links; the board stores its SHA-256 only */
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
    /** newest first */
    invites: Invite[];
    /** open invites now */
    open: number;
    /** the error a new invite would get now (403 trust.required, 429 rate.limited for the invites of the last 7 days or the open ones); absent when it would be made, so the settings page says why before anyone clicks */
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
    /** the newest 100 accounts it invited itself */
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
