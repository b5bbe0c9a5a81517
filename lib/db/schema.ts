import type Database from 'better-sqlite3';
import { indexRow, indexRowSql } from '../text/search-terms.ts';
import { nameSkeleton } from '../text/usernames.ts';

/**
 * A migration: SQL, or a function for one that must compute values in JavaScript (it runs in
 * the same transaction as the version bump).
 */
type Migration = string | ((db: Database.Database) => void);

/**
 * Migrations: an ordered list; PRAGMA user_version is the number already applied.
 * Never edit one that has shipped: append a new one.
 */
const migrations: Migration[] = [
  // 1: accounts, sessions, reset links, entries, votes, reports, counters.
  `
  CREATE TABLE users (
    uid          INTEGER PRIMARY KEY AUTOINCREMENT, -- ids are never reused after an account deletion
    username     TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,       -- lower-cased NFC name: case-insensitive uniqueness beyond ASCII
    pass_hash    TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_login   INTEGER NOT NULL DEFAULT 0,
    avatar       TEXT NOT NULL DEFAULT ''
  );

  CREATE TABLE sessions (
    token_hash  BLOB PRIMARY KEY,            -- SHA-256 of the cookie value; the value itself is never stored
    uid         INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    expires     INTEGER NOT NULL,
    description TEXT NOT NULL DEFAULT ''
  ) WITHOUT ROWID;
  CREATE INDEX sessions_by_uid ON sessions(uid);
  CREATE INDEX sessions_by_expiry ON sessions(expires);

  CREATE TABLE reset_links (
    token_hash BLOB PRIMARY KEY,
    uid        INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires    INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX reset_links_by_uid ON reset_links(uid);

  CREATE TABLE entries (
    pid            INTEGER PRIMARY KEY AUTOINCREMENT, -- /e/{pid} links never point at a different entry later
    uid            INTEGER NOT NULL,         -- 0 for the tombstone of a deleted account
    created_at     INTEGER NOT NULL,
    content        TEXT NOT NULL DEFAULT '',
    filepath       TEXT NOT NULL DEFAULT '',
    reply_to       INTEGER NOT NULL DEFAULT 0,
    root           INTEGER NOT NULL,         -- pid of the thread's top-level entry (itself when top-level)
    depth          INTEGER NOT NULL,         -- 0 for a top-level entry
    reply_count    INTEGER NOT NULL DEFAULT 0,
    last_activity  INTEGER NOT NULL,
    deleted        INTEGER NOT NULL DEFAULT 0,
    bump_count     INTEGER NOT NULL DEFAULT 0,
    last_bump      INTEGER NOT NULL DEFAULT 0,
    latest_pid     INTEGER NOT NULL DEFAULT 0, -- denormalised 'latest': newest live descendant ≤ 50 levels below
    latest_skipped INTEGER NOT NULL DEFAULT 0,
    votes_yes      INTEGER NOT NULL DEFAULT 0,
    votes_no       INTEGER NOT NULL DEFAULT 0,
    link           TEXT NOT NULL DEFAULT ''  -- canonical URL of the first link, key into previews
  );
  CREATE INDEX entries_feed ON entries(last_activity DESC, pid DESC) WHERE reply_to = 0;
  -- Children by parent; sorted by last_activity at read time, so a reply's walk up the
  -- ancestors rewrites each ancestor's row but not its index entry (writes stay cheap).
  CREATE INDEX entries_replies ON entries(reply_to, pid);
  CREATE INDEX entries_by_user ON entries(uid, pid DESC);
  CREATE INDEX entries_by_link ON entries(link) WHERE link <> '';

  CREATE TABLE votes (
    pid        INTEGER NOT NULL,
    uid        INTEGER NOT NULL,
    yes        INTEGER NOT NULL,             -- 1 yes, 0 no
    created_at INTEGER NOT NULL,
    PRIMARY KEY (pid, uid)
  ) WITHOUT ROWID;
  CREATE INDEX votes_by_uid ON votes(uid);

  CREATE TABLE reports (
    id           INTEGER PRIMARY KEY,
    pid          INTEGER NOT NULL,
    reporter_uid INTEGER NOT NULL,           -- 0: anonymous
    reason       TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    closed_at    INTEGER NOT NULL DEFAULT 0  -- 0 while open
  );
  -- A logged-in user holds at most one open report per entry.
  CREATE UNIQUE INDEX reports_one_open ON reports(pid, reporter_uid) WHERE closed_at = 0 AND reporter_uid <> 0;
  CREATE INDEX reports_open ON reports(closed_at, pid);

  -- Counters kept on write so statistics never count big tables.
  CREATE TABLE counters (
    name  TEXT PRIMARY KEY,
    value INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  INSERT INTO counters(name) VALUES ('users'), ('entries'), ('toplevel'), ('replies'), ('votes_yes'), ('votes_no');
  `,

  // 2: link previews: one record per canonical URL, and a job queue that survives restarts.
  `
  CREATE TABLE previews (
    url        TEXT PRIMARY KEY,             -- canonical URL (entries.link)
    kind       TEXT NOT NULL DEFAULT 'page', -- 'page' or 'youtube'
    title      TEXT NOT NULL DEFAULT '',     -- '' = no usable preview (the field stays absent)
    site       TEXT NOT NULL DEFAULT '',
    thumb      TEXT NOT NULL DEFAULT '',     -- path under media/, '' when none
    fetched_at INTEGER NOT NULL DEFAULT 0,   -- last attempt that answered; refreshed after 30 days
    failed_at  INTEGER NOT NULL DEFAULT 0    -- last failed attempt; retried no sooner than a day later
  ) WITHOUT ROWID;

  CREATE TABLE preview_jobs (
    url        TEXT PRIMARY KEY,
    queued_at  INTEGER NOT NULL,
    not_before INTEGER NOT NULL DEFAULT 0,
    attempts   INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE INDEX preview_jobs_due ON preview_jobs(not_before, queued_at);
  `,

  // 3: statistics: daily aggregates only; visitor hashes and the daily secret live one day.
  `
  CREATE TABLE daily_stats (
    day         TEXT PRIMARY KEY,            -- UTC 'YYYY-MM-DD'
    impressions INTEGER NOT NULL DEFAULT 0,
    visitors    INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;

  CREATE TABLE daily_asn (
    day      TEXT NOT NULL,
    asn      INTEGER NOT NULL,               -- 0 = unknown
    name     TEXT NOT NULL DEFAULT '',
    visitors INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, asn)
  ) WITHOUT ROWID;

  -- Keyed hashes of (IP, User-Agent) seen today, to count each visitor once; deleted with the day.
  CREATE TABLE visitor_hashes (
    day  TEXT NOT NULL,
    hash BLOB NOT NULL,
    PRIMARY KEY (day, hash)
  ) WITHOUT ROWID;

  -- The random key of those hashes, kept only for its day so a restart does not double-count.
  CREATE TABLE daily_secrets (
    day    TEXT PRIMARY KEY,
    secret BLOB NOT NULL
  ) WITHOUT ROWID;

  INSERT INTO counters(name) VALUES ('impressions'), ('visitors');
  `,

  // 4: moderation: roles and bans, removed entries, how reports were closed, the moderation log.
  `
  ALTER TABLE users ADD COLUMN role TEXT NOT NULL DEFAULT '';           -- '' or 'moderator'
  ALTER TABLE users ADD COLUMN banned_until INTEGER NOT NULL DEFAULT 0; -- 0 none, -1 permanent, else Unix time
  ALTER TABLE users ADD COLUMN ban_reason TEXT NOT NULL DEFAULT '';

  -- A removal also sets deleted = 1, so every "live entry" check treats it as gone; unlike an
  -- author's deletion it keeps content, filepath and link, so a restore brings it back exactly.
  ALTER TABLE entries ADD COLUMN removed INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE entries ADD COLUMN removed_reason TEXT NOT NULL DEFAULT '';
  ALTER TABLE entries ADD COLUMN removed_at INTEGER NOT NULL DEFAULT 0;

  ALTER TABLE reports ADD COLUMN closed_action TEXT NOT NULL DEFAULT ''; -- 'remove' or 'dismiss' once closed
  ALTER TABLE reports ADD COLUMN closed_log_id INTEGER NOT NULL DEFAULT 0; -- the modlog row that closed it

  -- One row per moderation action, written in the action's transaction. The public log shows
  -- the rows with public = 1 and never the moderator; board-admin modlog shows everything.
  CREATE TABLE modlog (
    id            INTEGER PRIMARY KEY,
    created_at    INTEGER NOT NULL,
    action        TEXT NOT NULL,              -- remove, restore, ban, unban, avatar_remove, dismiss; mod_add, mod_remove (not public)
    pid           INTEGER NOT NULL DEFAULT 0, -- 0 where no entry applies
    uid           INTEGER NOT NULL DEFAULT 0, -- the account acted on (an entry's author); 0 where none applies
    reason        TEXT NOT NULL DEFAULT '',
    until         INTEGER NOT NULL DEFAULT 0, -- a ban's banned_until; 0 otherwise
    moderator_uid INTEGER NOT NULL DEFAULT 0, -- 0: the administrator (board-admin)
    public        INTEGER NOT NULL DEFAULT 1
  );
  CREATE INDEX modlog_public ON modlog(id DESC) WHERE public = 1;
  `,

  // 5: abuse limits: the shared rate-limit counters, look-alike name keys, account deletions still
  // in progress, visitors per address, and entry images by path.
  (db) => {
    db.exec(`
    -- Fixed-window counters of every rate limit (lib/limits/rate-limit.ts). A client address is only
    -- ever a key: an HMAC under the day's secret, and its window ends at UTC midnight at the
    -- latest, so the row goes with its day. No index on reset_at: the minute's sweep may scan,
    -- every limited request would pay for the index.
    CREATE TABLE rate_limits (
      key      BLOB PRIMARY KEY,
      count    INTEGER NOT NULL,
      reset_at INTEGER NOT NULL             -- end of the window
    ) WITHOUT ROWID;

    -- The TR39 skeleton of the lower-cased name (lib/text/usernames.ts): new names and renames
    -- may not share it. Not UNIQUE: look-alike pairs from before stay usable.
    ALTER TABLE users ADD COLUMN name_skeleton TEXT NOT NULL DEFAULT '';
    CREATE INDEX users_by_skeleton ON users(name_skeleton);

    -- Deleted accounts whose entries, votes and reports a background job still removes (lib/account-data/removal.ts).
    CREATE TABLE pending_deletions (
      uid           INTEGER PRIMARY KEY,      -- the user row is already gone
      queued_at     INTEGER NOT NULL,
      claimed_until INTEGER NOT NULL DEFAULT 0 -- a process working on it holds it until then
    );

    -- Visitors counted today per client address (HMAC of its /64 under the day's secret), at most 3.
    CREATE TABLE visitor_subjects (
      day      TEXT NOT NULL,
      hash     BLOB NOT NULL,
      visitors INTEGER NOT NULL,
      PRIMARY KEY (day, hash)
    ) WITHOUT ROWID;

    -- The account-removal slices find a user's reports and the reports on an entry they remove;
    -- the data export lists an account's reports.
    CREATE INDEX reports_by_reporter ON reports(reporter_uid) WHERE reporter_uid <> 0;
    CREATE INDEX reports_by_entry ON reports(pid);

    -- /static/media/e/… answers only while a live entry owns the file.
    CREATE INDEX entries_by_filepath ON entries(filepath) WHERE filepath <> '';
    `);
    const rename = db.prepare('UPDATE users SET name_skeleton = ? WHERE uid = ?');
    for (const user of db.prepare('SELECT uid, username FROM users').all() as { uid: number; username: string }[]) {
      rename.run(nameSkeleton(user.username), user.uid);
    }
  },

  // 6: accounts: an opaque public id per session, and mutes. (The reports by reporter, which the
  // data export lists, have their index from migration 5.)
  `
  -- Sessions get a random public id, so the session list can name a session without showing its
  -- token or the token's hash. Rebuilt because ALTER TABLE cannot add a column with a random
  -- default; the default also fills rows written by tools that do not know the column.
  CREATE TABLE sessions_v6 (
    token_hash  BLOB PRIMARY KEY,
    public_id   TEXT NOT NULL UNIQUE DEFAULT (lower(hex(randomblob(16)))),
    uid         INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    expires     INTEGER NOT NULL,
    description TEXT NOT NULL DEFAULT ''
  ) WITHOUT ROWID;
  INSERT INTO sessions_v6 (token_hash, uid, created_at, expires, description)
    SELECT token_hash, uid, created_at, expires, description FROM sessions;
  DROP TABLE sessions;
  ALTER TABLE sessions_v6 RENAME TO sessions;
  CREATE INDEX sessions_by_uid ON sessions(uid, created_at DESC);
  CREATE INDEX sessions_by_expiry ON sessions(expires);

  -- Who muted whom. Both sides go with either account (the cascade backs up deleteAccount's own delete).
  CREATE TABLE mutes (
    uid        INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE, -- the reader
    muted_uid  INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (uid, muted_uid)
  ) WITHOUT ROWID;
  CREATE INDEX mutes_by_muted ON mutes(muted_uid);
  `,

  // 7: image descriptions: the author's alt text of an entry's image.
  `
  -- '' when the author wrote none (or the entry has no image); blanked with the image.
  ALTER TABLE entries ADD COLUMN alt TEXT NOT NULL DEFAULT '';
  `,

  // 8: search: edit marks, the full-text index of live entries and its backfill.
  `
  ALTER TABLE entries ADD COLUMN edited_at INTEGER NOT NULL DEFAULT 0; -- the last edit; 0: never edited

  -- One row per live entry, rowid = pid, kept in the transaction of every write (lib/search/index.ts).
  -- Contentless: the text stays in entries. Trigrams: a word finds the compounds that contain it.
  CREATE VIRTUAL TABLE search USING fts5(
    text, short, author,
    content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 0'
  );

  -- The entries written before the index: the background backfill (lib/search/backfill.ts) indexes
  -- the pids below next_below, newest first, and deletes the row when it is done. A new board has none.
  CREATE TABLE search_backfill (
    next_below INTEGER NOT NULL,
    total      INTEGER NOT NULL             -- pids to go at the start, for the progress lines
  );
  INSERT INTO search_backfill (next_below, total) SELECT max(pid) + 1, max(pid) FROM entries HAVING count(*) > 0;
  `,

  // 9: notifications: replies and mentions with read marks, and the private Atom feed's token.
  `
  -- Written in the create or edit transaction (lib/notifications/notifications.ts). A notification of an entry
  -- that is deleted or removed is hidden, not deleted, so a restore brings it back.
  CREATE TABLE notifications (
    id         INTEGER PRIMARY KEY,
    uid        INTEGER NOT NULL,            -- the account told
    pid        INTEGER NOT NULL,            -- the entry that replies or mentions
    actor_uid  INTEGER NOT NULL,            -- its author: mutes hide, an account deletion removes these
    kind       TEXT NOT NULL,               -- 'reply' or 'mention'
    created_at INTEGER NOT NULL,
    read       INTEGER NOT NULL DEFAULT 0,
    UNIQUE (uid, pid)                       -- never twice for the same entry and person
  );
  CREATE INDEX notifications_by_uid ON notifications(uid, id);
  CREATE INDEX notifications_unread ON notifications(uid, id) WHERE read = 0;
  CREATE INDEX notifications_by_actor ON notifications(actor_uid);
  CREATE INDEX notifications_by_entry ON notifications(pid);

  -- The secret of an account's private Atom feed (/n/<token>.atom): only its SHA-256 is kept.
  CREATE TABLE feed_tokens (
    uid        INTEGER PRIMARY KEY REFERENCES users(uid) ON DELETE CASCADE,
    token_hash BLOB NOT NULL UNIQUE,
    created_at INTEGER NOT NULL
  );
  `,

  // 10: search covers image descriptions (lib/text/search-terms.ts indexedText): the index rows of the
  // live entries that have one are written again. Those below the backfill's mark get theirs
  // when the backfill reaches them.
  reindexDescribedEntries,

  // 11: how many notifications each account keeps, so the newest-1000 rule (lib/notifications/notifications.ts)
  // reads one row instead of walking 1000 index entries at every notification.
  `
  -- Kept by the triggers below on every insert and delete, whichever code path does it.
  CREATE TABLE notification_counts (
    uid  INTEGER PRIMARY KEY,                -- the account told
    kept INTEGER NOT NULL                    -- its rows in notifications
  );
  INSERT INTO notification_counts (uid, kept) SELECT uid, count(*) FROM notifications GROUP BY uid;
  CREATE TRIGGER notification_counted AFTER INSERT ON notifications BEGIN
    INSERT INTO notification_counts (uid, kept) VALUES (new.uid, 1) ON CONFLICT (uid) DO UPDATE SET kept = kept + 1;
  END;
  CREATE TRIGGER notification_uncounted AFTER DELETE ON notifications BEGIN
    UPDATE notification_counts SET kept = kept - 1 WHERE uid = old.uid;
    DELETE FROM notification_counts WHERE uid = old.uid AND kept = 0;
  END;
  `,

  // 12: the index of notifications by their author goes: an account deletion finds the ones its
  // entries caused through its entries (deleteNotificationsOf), and the index cost every create and
  // every dropped notification a page of its own.
  `
  DROP INDEX notifications_by_actor;
  `,

  // 13: when each Atom feed last lost or changed something its entries' own times do not show
  // (lib/db/feed-changes.ts), so a feed's updated and Last-Modified never go back.
  `
  CREATE TABLE feed_changes (
    kind       TEXT NOT NULL,                -- board, thread, user, notices, every, entries
    id         INTEGER NOT NULL,             -- the thread's root, the account's uid; 0 for the others
    changed_at INTEGER NOT NULL,             -- only ever grows
    PRIMARY KEY (kind, id)
  ) WITHOUT ROWID;
  `,

  // 14: board-admin modlog --by NAME lists one moderator's actions (lib/modlog/modlog.ts readModlogRange).
  `
  CREATE INDEX modlog_by_actor ON modlog(moderator_uid);
  `,

  // 15: registration: how an account got in (application, invite), its trust, the invites, the
  // board-wide registration mode a moderator or the surge gate set, and the proof-of-work
  // challenges already used.
  `
  ALTER TABLE users ADD COLUMN status TEXT NOT NULL DEFAULT '';          -- '', 'pending' or 'rejected' (lib/accounts/applications.ts)
  ALTER TABLE users ADD COLUMN application TEXT NOT NULL DEFAULT '';     -- the answer to the question; emptied once decided
  ALTER TABLE users ADD COLUMN decided_at INTEGER NOT NULL DEFAULT 0;    -- a rejection's time: the account goes 30 days later
  ALTER TABLE users ADD COLUMN reject_reason TEXT NOT NULL DEFAULT '';
  ALTER TABLE users ADD COLUMN invited_by INTEGER NOT NULL DEFAULT 0;    -- the inviter's uid; 0: none or the administrator
  ALTER TABLE users ADD COLUMN trust_set INTEGER NOT NULL DEFAULT -1;    -- -1: earned (lib/accounts/trust.ts), else the level set
  CREATE INDEX users_by_status ON users(status, created_at) WHERE status <> '';
  CREATE INDEX users_by_inviter ON users(invited_by) WHERE invited_by <> 0;
  CREATE INDEX users_by_created ON users(created_at);

  CREATE TABLE invites (
    id         INTEGER PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,          -- SHA-256 of the token; the token is only in the link
    uid        INTEGER NOT NULL,              -- the inviter; 0: the administrator (board-admin invite)
    created_at INTEGER NOT NULL,
    expires    INTEGER NOT NULL,
    used_by    INTEGER NOT NULL DEFAULT 0,    -- the account it made
    used_at    INTEGER NOT NULL DEFAULT 0,
    revoked_at INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX invites_by_uid ON invites(uid, id DESC);

  -- One row per setting the board changes at run time (the registration mode and who set it, the
  -- proof-of-work key).
  CREATE TABLE board_state (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;

  -- Signatures of solved challenges until they expire: each challenge is good for one request.
  CREATE TABLE used_challenges (
    signature TEXT PRIMARY KEY,
    expires   INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX used_challenges_by_expiry ON used_challenges(expires);
  `,

  // 16: following threads and Web Push (lib/follows/, lib/push/).
  `
  -- Who follows which entry's subtree. Found from a new reply's ancestor chain by follows_by_entry.
  CREATE TABLE follows (
    uid        INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    pid        INTEGER NOT NULL,            -- the followed entry: its whole subtree
    created_at INTEGER NOT NULL,
    PRIMARY KEY (uid, pid)
  ) WITHOUT ROWID;
  CREATE INDEX follows_by_entry ON follows(pid);
  -- 1: a new thread of the account is followed by its author (switchable in the settings).
  ALTER TABLE users ADD COLUMN follow_own_threads INTEGER NOT NULL DEFAULT 1;

  -- A thread_reply notification names the followed entry it came through (0 for the other kinds),
  -- so "one per followed thread until read" is one probe of the partial index.
  ALTER TABLE notifications ADD COLUMN thread INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX notifications_thread_unread ON notifications(uid, thread) WHERE thread <> 0 AND read = 0;

  -- The board's VAPID key pair (RFC 8292), made at the first start; never in the repository or a log line.
  CREATE TABLE push_keys (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    public_key  TEXT NOT NULL,              -- base64url, uncompressed P-256 point
    private_key TEXT NOT NULL,              -- base64url
    created_at  INTEGER NOT NULL
  );
  -- One push subscription per session: it ends with the session (logout, revoke, password change).
  CREATE TABLE push_devices (
    session_id TEXT PRIMARY KEY REFERENCES sessions(public_id) ON DELETE CASCADE,
    uid        INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    endpoint   TEXT NOT NULL,
    p256dh     TEXT NOT NULL,               -- the browser's public key, base64url
    auth       TEXT NOT NULL,               -- the browser's auth secret, base64url
    created_at INTEGER NOT NULL
  );
  CREATE INDEX push_devices_by_uid ON push_devices(uid);
  -- Pushes waiting for the background sender (lib/push/queue.ts), at most 20 per device.
  CREATE TABLE push_outbox (
    id              INTEGER PRIMARY KEY,
    session_id      TEXT NOT NULL REFERENCES push_devices(session_id) ON DELETE CASCADE,
    notification_id INTEGER NOT NULL,
    created_at      INTEGER NOT NULL
  );
  CREATE INDEX push_outbox_by_device ON push_outbox(session_id, id);
  -- Every new notification of an account with push devices is queued for each, whichever code wrote it.
  CREATE TRIGGER notification_pushed AFTER INSERT ON notifications BEGIN
    INSERT INTO push_outbox (session_id, notification_id, created_at)
      SELECT d.session_id, new.id, new.created_at FROM push_devices d
      WHERE d.uid = new.uid AND (SELECT count(*) FROM push_outbox o WHERE o.session_id = d.session_id) < 20;
  END;
  `,

  // 17: passkeys and recovery codes: credentials, the WebAuthn user handle of each account, the
  // outstanding challenges (single use, a few minutes) and the hashed recovery codes.
  `
  CREATE TABLE passkeys (
    id            TEXT PRIMARY KEY,          -- public id (32 hex), unrelated to the credential
    uid           INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    credential_id TEXT NOT NULL UNIQUE,      -- base64url, as the authenticator names it
    public_key    BLOB NOT NULL,             -- COSE key
    counter       INTEGER NOT NULL,          -- signature counter; 0 when the authenticator keeps none
    transports    TEXT NOT NULL DEFAULT '',  -- comma-separated hints for the browser
    device_type   TEXT NOT NULL,             -- singleDevice or multiDevice (may be synced)
    backed_up     INTEGER NOT NULL,          -- 1 while the authenticator says it is backed up
    name          TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used     INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  CREATE INDEX passkeys_by_uid ON passkeys(uid);

  CREATE TABLE webauthn_users (
    uid    INTEGER PRIMARY KEY REFERENCES users(uid) ON DELETE CASCADE,
    handle BLOB NOT NULL UNIQUE              -- random 32 bytes: what authenticators store as the user id
  );

  CREATE TABLE webauthn_challenges (
    challenge  TEXT PRIMARY KEY,             -- base64url, as the client data carries it back
    uid        INTEGER NOT NULL,             -- the registering account; 0 for a sign-in
    expires    INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX webauthn_challenges_by_uid ON webauthn_challenges(uid, expires);
  CREATE INDEX webauthn_challenges_by_expiry ON webauthn_challenges(expires);

  CREATE TABLE recovery_codes (
    uid        INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    code_hash  BLOB NOT NULL,                -- HMAC-SHA256 of the code (lib/accounts/recovery-codes.ts)
    created_at INTEGER NOT NULL,
    PRIMARY KEY (uid, code_hash)
  ) WITHOUT ROWID;
  `,

  // 18: a reply's followers are told by a background job after its create commits, in batches
  // (lib/notifications/thread-replies.ts), and a push that failed for a passing reason is tried
  // again later (lib/push/queue.ts).
  `
  -- One row per reply whose followers are still to be told, written in the reply's create
  -- transaction; each batch of followers advances after_uid in its own transaction, and the last
  -- one deletes the row, so a restart goes on where the last committed batch ended.
  CREATE TABLE thread_reply_fanout (
    id         INTEGER PRIMARY KEY,
    pid        INTEGER NOT NULL,              -- the new reply
    author_uid INTEGER NOT NULL,              -- its author, never told of the own reply
    created_at INTEGER NOT NULL,              -- the reply's time: its notifications' time
    after_uid  INTEGER NOT NULL DEFAULT 0     -- followers up to this uid are done
  );
  -- A push tried again: how many tries it had, and not before when the next may start.
  ALTER TABLE push_outbox ADD COLUMN tries INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE push_outbox ADD COLUMN not_before INTEGER NOT NULL DEFAULT 0;
  `,

  // 19: federation (lib/federation/): the operator's instance lists, the actors' keys, the remote
  // actors that follow (read again once the board reads answers), the followers, and the outbox:
  // what a write tells, then one delivery per inbox.
  `
  -- An instance: its host as its URLs write it (lower case, the port when not the default).
  CREATE TABLE federation_instances (
    host           TEXT PRIMARY KEY,
    state          TEXT NOT NULL DEFAULT '',  -- '' (no decision), allowed, blocked
    changed_at     INTEGER NOT NULL DEFAULT 0,
    signature      TEXT NOT NULL DEFAULT '',  -- the signature form it took last: rfc9421 or draft-cavage
    delivered      INTEGER NOT NULL DEFAULT 0,
    failed         INTEGER NOT NULL DEFAULT 0, -- deliveries given up
    last_delivered INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;

  -- Each actor's key pairs, made on first need: RSA for HTTP signatures, Ed25519 for object proofs.
  CREATE TABLE federation_keys (
    owner_uid   INTEGER NOT NULL,             -- 0: the board's Group
    algorithm   TEXT NOT NULL,                -- RSASSA-PKCS1-v1_5 or Ed25519
    private_jwk TEXT NOT NULL,                -- never exported, never logged
    public_jwk  TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (owner_uid, algorithm)
  ) WITHOUT ROWID;

  CREATE TABLE remote_actors (
    id           TEXT PRIMARY KEY,            -- the actor's URI
    host         TEXT NOT NULL,
    handle       TEXT NOT NULL DEFAULT '',    -- preferredUsername
    name         TEXT NOT NULL DEFAULT '',
    inbox        TEXT NOT NULL,
    shared_inbox TEXT NOT NULL DEFAULT '',
    url          TEXT NOT NULL DEFAULT '',
    fetched_at   INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX remote_actors_by_host ON remote_actors(host);

  CREATE TABLE federation_followers (
    target_uid INTEGER NOT NULL,              -- 0: the board's Group, else the account followed
    actor_id   TEXT NOT NULL REFERENCES remote_actors(id) ON DELETE CASCADE,
    follow_id  TEXT NOT NULL,                 -- the Follow's id, which Accept and Undo name
    host       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (target_uid, actor_id)
  ) WITHOUT ROWID;
  CREATE INDEX federation_followers_by_host ON federation_followers(host);

  -- Remote actors an actor of the board follows (the Group of a test board, and issue 42's answers).
  CREATE TABLE federation_following (
    local_uid   INTEGER NOT NULL,             -- 0: the board's Group
    actor_id    TEXT NOT NULL REFERENCES remote_actors(id) ON DELETE CASCADE,
    follow_id   TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    accepted_at INTEGER NOT NULL DEFAULT 0,   -- 0 until the other side's Accept came
    PRIMARY KEY (local_uid, actor_id)
  ) WITHOUT ROWID;

  -- What a write tells, in the write's own transaction; the delivery job turns each into an
  -- activity and its deliveries.
  CREATE TABLE federation_outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- names its activities: never reused, or servers drop them as seen
    kind       TEXT NOT NULL,
    actor_uid  INTEGER NOT NULL,              -- who acts: 0 the Group
    pid        INTEGER NOT NULL DEFAULT 0,
    detail     TEXT NOT NULL DEFAULT '',      -- what the kind needs besides (JSON)
    created_at INTEGER NOT NULL
  );

  CREATE TABLE federation_activities (
    id         INTEGER PRIMARY KEY,
    body       TEXT NOT NULL,                 -- the activity as JSON-LD
    signer_uid INTEGER NOT NULL,
    kind       TEXT NOT NULL,                 -- the outbox kind it came from (a deletion goes out whatever the signer's standing)
    created_at INTEGER NOT NULL
  );
  -- One POST per inbox (a shared inbox when the follower has one) and activity.
  CREATE TABLE federation_deliveries (
    id          INTEGER PRIMARY KEY,
    activity_id INTEGER NOT NULL REFERENCES federation_activities(id) ON DELETE CASCADE,
    inbox       TEXT NOT NULL,
    host        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    tries       INTEGER NOT NULL DEFAULT 0,
    not_before  INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX federation_deliveries_due ON federation_deliveries(not_before, id);
  CREATE INDEX federation_deliveries_by_host ON federation_deliveries(host);
  CREATE INDEX federation_deliveries_by_activity ON federation_deliveries(activity_id);
  CREATE TRIGGER federation_activity_sent AFTER DELETE ON federation_deliveries
    WHEN NOT EXISTS (SELECT 1 FROM federation_deliveries WHERE activity_id = old.activity_id)
  BEGIN
    DELETE FROM federation_activities WHERE id = old.activity_id;
  END;

  -- Fedify's key-value store and message queue (lib/federation/fedify-store.ts).
  CREATE TABLE fedify_kv (
    key     TEXT PRIMARY KEY,                 -- the key's parts as a JSON array
    value   TEXT NOT NULL,                    -- JSON
    expires INTEGER NOT NULL DEFAULT 0        -- Unix ms; 0 never
  ) WITHOUT ROWID;
  CREATE TABLE fedify_queue (
    id         INTEGER PRIMARY KEY,
    message    TEXT NOT NULL,                 -- JSON
    not_before INTEGER NOT NULL,              -- Unix ms
    ordering   TEXT NOT NULL DEFAULT ''
  );
  CREATE INDEX fedify_queue_due ON fedify_queue(not_before, id);
  `,
  // 20: answers from other servers (lib/federation/remote-entries.ts): a remote author is a users
  // row with status 'remote' (never public, never logs in), linked to its actor; a remote entry
  // remembers its object's id and page.
  `
  ALTER TABLE remote_actors ADD COLUMN uid INTEGER NOT NULL DEFAULT 0;  -- its users row once it wrote; 0 none
  CREATE INDEX remote_actors_by_uid ON remote_actors(uid) WHERE uid <> 0;
  CREATE TABLE remote_entries (
    pid       INTEGER PRIMARY KEY REFERENCES entries(pid) ON DELETE CASCADE,
    object_id TEXT NOT NULL UNIQUE,           -- the Note's id on its server
    actor_id  TEXT NOT NULL,
    host      TEXT NOT NULL,
    url       TEXT NOT NULL                   -- its page there (the Note's url, else its id)
  );
  `,
  // 21: whose act an activity carries, so a ban stops the Group's Announce of it as it stops the
  // person's own activity (lib/federation/delivery.ts mayGo); 0 the Group's own act.
  `
  ALTER TABLE federation_activities ADD COLUMN author_uid INTEGER NOT NULL DEFAULT 0;
  UPDATE federation_activities SET author_uid = signer_uid;
  `,
  // 22: what remote actors do to entries (lib/federation/inbound-votes.ts): the activity behind each
  // remote vote, so an Undo naming it by id finds it, and each remote share (an Announce).
  `
  CREATE TABLE remote_reactions (
    activity_id TEXT PRIMARY KEY,             -- the Like's, Dislike's or Announce's id on its server
    kind        TEXT NOT NULL,                -- 'vote' (the vote itself is in votes) or 'share'
    pid         INTEGER NOT NULL REFERENCES entries(pid) ON DELETE CASCADE,
    uid         INTEGER NOT NULL REFERENCES users(uid) ON DELETE CASCADE,
    created_at  INTEGER NOT NULL,
    UNIQUE (kind, pid, uid)
  );
  CREATE INDEX remote_reactions_by_uid ON remote_reactions(uid);
  `,
  // 23: moderation of what other servers send (lib/federation/instance-entries.ts, inbound-flags.ts):
  // the instance a report came from, and which remote entries an instance block hides.
  `
  ALTER TABLE reports ADD COLUMN instance TEXT NOT NULL DEFAULT '';      -- a Flag's server; '' a report made here
  ALTER TABLE remote_entries ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0; -- 1 while its instance's block hides it
  CREATE INDEX remote_entries_by_host ON remote_entries(host);
  `,
];

function reindexDescribedEntries(db: Database.Database): void {
  const mark =
    (db.prepare('SELECT next_below FROM search_backfill').get() as { next_below: number } | undefined)?.next_below ?? 0;
  const slice = db.prepare(
    "SELECT pid, uid, content, alt FROM entries WHERE pid > ? AND pid >= ? AND deleted = 0 AND alt != '' ORDER BY pid LIMIT 500",
  );
  const remove = db.prepare('DELETE FROM search WHERE rowid = ?');
  const insert = db.prepare(indexRowSql);
  for (let after = 0; ; ) {
    const rows = slice.all(after, mark) as { pid: number; uid: number; content: string; alt: string }[];
    for (const row of rows) {
      remove.run(row.pid);
      insert.run(...indexRow(row));
    }
    if (rows.length < 500) return;
    after = rows.at(-1)!.pid;
  }
}

export class SchemaTooNewError extends Error {}

export interface MigrationStep {
  from: number;
  to: number;
  ms: number;
}

/** Applies every migration the database has not seen yet (tests: up to `target`), each in its own transaction. */
export function migrate(db: Database.Database, target = migrations.length): MigrationStep[] {
  const applied = db.pragma('user_version', { simple: true }) as number;
  if (applied > migrations.length) {
    throw new SchemaTooNewError(`database schema ${applied} is newer than this code (${migrations.length})`);
  }
  const steps: MigrationStep[] = [];
  for (let version = applied; version < target; version++) {
    const started = performance.now();
    db.transaction(() => {
      const migration = migrations[version]!;
      if (typeof migration === 'string') db.exec(migration);
      else migration(db);
      db.pragma(`user_version = ${version + 1}`);
    })();
    steps.push({ from: version, to: version + 1, ms: performance.now() - started });
  }
  return steps;
}

export const schemaVersion = migrations.length;
