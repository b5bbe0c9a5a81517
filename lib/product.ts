/**
 * Every product limit of the board: the lengths, counts, pages and times a user or an API client
 * meets (docs/API.md states each). The checks, the German messages (lib/messages.ts), the OpenAPI
 * document (lib/openapi/) and the front end (web/static/limits.js, written from this module by
 * lib/pages/front-end-limits.ts) all read them here. Only numbers: the front end gets every one.
 * The abuse brakes per group and window have their own tables (lib/limits/write-limits.ts,
 * lib/limits/rate-limit.ts), the rules for new accounts theirs (lib/accounts/standing.ts).
 */

const minute = 60;
const hour = 3600;
const day = 86_400;

// Entries

/** Entry text, in code points (docs/API.md "POST /api/entry/create"). */
export const maxContentLength = 1000;
/** An image's description, in code points: enough for a sentence or two, as screen readers read it at once. */
export const maxAltLength = 300;
/**
 * A reply lies at most 200 levels below its root. Why: every reply rewrites its ancestors' rows and
 * every thread read walks them; a chain thousands deep made one account able to slow every reader
 * and its own deletion.
 */
export const maxReplyDepth = 200;
/**
 * The same text twice within 10 minutes is refused (409 entry.duplicate); texts under 10
 * characters ("Danke!") are exempt. Why: a script posting one message again and again is the
 * cheapest spam there is.
 */
export const duplicateWindowSeconds = 10 * minute;
export const minDuplicateLength = 10;
/**
 * The bump cooldown: a never-bumped entry may be bumped at once; after its n-th bump the next
 * waits n of these steps. Why it grows: each repost must wait one day longer, so bumping cannot
 * pin a thread on top.
 */
export const bumpCooldownStepSeconds = day;
/** A report's reason, in code points (docs/API.md "POST /api/entry/{pid}/report"). */
export const maxReportReasonLength = 500;
/**
 * Tallies asked for in one request. A page shows up to 100 entries (feed 20 + their latest 20,
 * thread up to 100 replies): one request, not one per entry.
 */
export const maxBulkPids = 100;

// Feeds and threads

/** Feed, profile and search pages: 20 entries each, pages 0 to 100. */
export const feedPageSize = 20;
export const maxFeedPage = 100;
/** A thread shows at most its 100 most recently active direct replies. */
export const maxThreadReplies = 100;
/**
 * A thread's `ancestors` hold the root and at most the 99 nearest ancestors. Why: a deep chain made
 * every read near its bottom carry megabytes of ancestors.
 */
export const maxNearAncestors = 99;
/** `latest` looks at most 50 levels below an entry. */
export const latestMaxDepth = 50;
/** Atom feeds: 50 entries a feed, what feed readers poll for. */
export const atomFeedSize = 50;

// Accounts

/** Usernames: 3–32 code points of letters, marks, digits, `.`, `_`, space and `-`. */
export const minUsernameLength = 3;
export const maxUsernameLength = 32;
/** New passwords, in code points; the upper bound bounds the work one request can ask of the hasher. */
export const minPasswordLength = 10;
export const maxPasswordLength = 1024;
/**
 * A login lasts `timeout` seconds, from a minute to a year, a day when the form names none. Why
 * the minute: below it a session is useless (the form offers an hour and up).
 */
export const minLoginSeconds = minute;
export const maxLoginSeconds = 365 * day;
export const defaultLoginSeconds = day;
/** A session keeps the first 200 characters of the User-Agent at login as its description. */
export const maxSessionDescriptionLength = 200;
/** The newest sessions a list shows; revoke-others ends the rest too. */
export const maxListedSessions = 100;
/** Why 72 hours: long enough to reach someone by another channel, short enough to go stale. */
export const resetLinkLifetimeSeconds = 72 * hour;
/** Why a bound: the front end filters with the whole list on every page, so it must stay small. */
export const maxMutes = 1000;
/**
 * Passkeys an account may hold. Why a bound: each is a row the list and every registration's
 * exclude list carry; 20 covers every device a person has.
 */
export const maxPasskeysPerAccount = 20;
/** A passkey's name, chosen by its owner ("Handy", "Laptop"), in code points. */
export const maxPasskeyNameLength = 64;
/** Recovery codes a set holds (docs/API.md "Recovery codes"). */
export const recoveryCodeCount = 10;
/** A passkey challenge is valid 5 minutes; the browser's own prompt is told to wait 2 (in ms). */
export const passkeyChallengeSeconds = 5 * minute;
export const passkeyPromptMs = 2 * minute * 1000;
/**
 * Sign-in challenges outstanding board-wide. Why a bound: each is a row anyone can make (held only
 * by the login rate limit per address); at the bound the oldest go first, so a flood can at worst
 * make an honest person press the passkey button again, and never grow the table.
 */
export const maxSignInChallenges = 10_000;
/** Registration challenges outstanding per account (several tabs); older ones go first. */
export const maxRegisterChallenges = 5;

// Images

/** Entry images are scaled to at most this many pixels on the longer side, never enlarged. */
export const maxImageEdge = 1024;
/** Avatars are cropped to a square of this many pixels. */
export const avatarSize = 256;
/** Decompression-bomb guard: a larger image is refused (413 upload.too_large) before it is decoded. */
export const maxImagePixels = 50_000_000;
/**
 * Animated GIFs: at most 300 frames and 20 megapixels of frames in all, refused before the frames
 * are decoded. Why: a 1,000-frame GIF cost seconds of CPU per upload and held the image slots
 * avatars and thumbnails share. An honest animation fits: 300 frames are 30 s at 10 frames a
 * second, and 20 megapixels hold 150 frames of 480×270 or 40 of 720×690; a longer clip belongs in
 * a video link.
 */
export const maxGifFrames = 300;
export const maxGifPixels = 20_000_000;
/** Link preview titles are cut to 300 code points. */
export const maxPreviewTitleLength = 300;

// Moderation

/** A moderation reason has 1–500 code points after cleaning: public on the removed entry and in the log. */
export const maxModReasonLength = 500;
/** Bans last 1 to 3650 days, or for good: longer is what a permanent ban is for. */
export const maxBanDays = 3650;
/** The report queue: 20 entries a page, pages 0–100, at most 50 reports shown per entry. */
export const queuePageSize = 20;
export const maxQueuePage = 100;
export const maxReportsPerEntry = 50;
/** The public moderation log: 50 rows a page, pages 0–100. */
export const modlogPageSize = 50;
export const maxModlogPage = 100;

// Search and notifications

/** A search is 1–200 characters (docs/API.md "GET /api/search/{page}"). */
export const maxSearchLength = 200;
/**
 * A search holds at most 10 terms in `q` (a phrase in quotes is one). Why: every term is ANDed into the match and
 * adds its lists of the index to what one search reads, so work grows with the terms (20 common
 * words took 0.2 s on a 200k board, issue 28), while people search with a few words; an entry
 * holding more than ten given words is one quoted from, and its text in quotes finds it as one
 * term. Why a 400 rather than dropping the rest: an answer must hold every term of q, and results
 * for fewer terms than typed would look like matches that are not.
 */
export const maxSearchTerms = 10;
/** The notifications page shows 20 a page. */
export const notificationPageSize = 20;
/** Why a bound: a long list of names must not turn one entry into a way to ping the whole board. */
export const maxNotifiedPerEntry = 5;

// Following and Web Push (docs/API.md "Following threads", "Web Push")

/**
 * Follows per account. Why a bound: every follow is a row a new reply's fan-out may probe, and
 * the front end loads the whole list of followed pids once per page load.
 */
export const maxFollows = 1000;
/** The list of followed entries shows 20 a page, like the notifications. */
export const followingPageSize = 20;
/**
 * A reply's followers are told this many per transaction, after its create (lib/notifications/
 * thread-replies.ts). Why 500: a batch then holds SQLite's one write lock for a few milliseconds
 * (bench/follow-fanout.ts), so a thread with ten thousand followers makes no other write wait
 * longer than a batch of creates does; and a thread with up to 500 followers, nearly every
 * thread, is told in one transaction right after its reply.
 */
export const followerBatch = 500;
/** Push devices per account (one per session). Why a bound: each costs every notification of the account a push request. */
export const maxPushDevices = 10;
/** A push endpoint's length: real push services' are 100–400 characters; more is not a subscription. */
export const maxEndpointLength = 1000;
/** A push's text is cut here: a lock screen shows a few lines, and a push stays far under the 4 KiB push services take. */
export const maxPushTextLength = 200;

// Statistics

/** The statistics look back 30 days (the chart, `daily`, and the networks of `top_asns`). */
export const statsWindowDays = 30;
/** `top_asns` lists at most 10 networks. */
export const topAsnCount = 10;
/**
 * Visitors one address (an IPv6 client: its /64) may bring per day: a client that changes its
 * User-Agent on every request counted as 300 visitors, and 250,000 such requests used up the
 * day's cap. A household or an office with a few browsers still counts. BOARD_LIMITS scales it;
 * 0 lifts it.
 */
export const maxVisitorsPerAddress = 3;
/**
 * Visitors counted per day at most. The User-Agent is the caller's to choose, so one client could
 * otherwise grow the day's hash set (memory and rows) without end; a small board never gets near.
 */
export const maxVisitorsPerDay = 250_000;

// Trust levels (the level: lib/accounts/trust.ts; level 0's caps are judged in lib/entries/content-gate.ts)

/**
 * Level 1 is earned at this age with this many live entries no moderator removed. Why 2 days and
 * 3 entries: a spam account posts at once and is gone within hours; a person who stays two days
 * and writes three entries that stand has shown a pattern a bot rarely waits for.
 */
export const trustAfterSeconds = 2 * day;
export const trustAfterLiveEntries = 3;
/**
 * Level 0's links and images: Discourse lets a new user post 2 links and 1 image; an entry here
 * holds one image, so the budget is a day's: 2 entries with links (2 links each), 1 with an image.
 */
export const levelZeroLinksPerEntry = 2;
export const levelZeroEntriesWithLinksPerDay = 2;
export const levelZeroImagesPerDay = 1;

// Registration (docs/API.md "Registration"; the rules: lib/registration/)

/** An application's answer, in code points: so a moderator has something to read and a bot something to write. */
export const minApplicationLength = 10;
export const maxApplicationLength = 1000;
/**
 * Applications waiting at most: a wave of bots must not grow the table without end. Past it new
 * applications are refused with a 429 that says so, until moderators decide or the wave passes.
 */
export const maxPendingApplications = 1000;
/** The moderators' list of applications: 50 a page, pages 0–100. */
export const applicationsPageSize = 50;
export const maxApplicationsPage = 100;
/**
 * A rejected account stays 30 days, so its owner learns the reason at login, then it goes and the
 * name is free. Why 30 days: long enough to read the reason after a holiday, short enough that a
 * name does not stay blocked.
 */
export const rejectedKeptSeconds = 30 * day;
/** Why 7 days: long enough to reach a friend by another channel, short enough that a leaked link goes stale. */
export const inviteLifetimeSeconds = 7 * day;
/** board-admin invite --days: at most a year. */
export const maxAdminInviteDays = 365;
/** Open invites one member may hold at a time: enough to bring a few friends, too few to sell. */
export const maxOpenInvites = 5;
/**
 * Invites one member may make in 7 days, revoked ones included; BOARD_LIMITS scales it, 0 lifts it.
 * Why: the open bound above holds nothing over time (made and revoked again and again, invites
 * grew the table by thousands of rows in seconds); twice the open bound lets a member replace
 * each of them once a week.
 */
export const maxInvitesPerWeek = 10;
export const inviteWeekSeconds = 7 * day;
/** The newest invites a member's list shows. */
export const maxListedInvites = 100;
/** Accounts a ban of an invite tree takes at most: the ban stays one bounded transaction. */
export const maxTreeAccounts = 1000;
/** A proof-of-work challenge is good for 10 minutes: time to fill in a form, too short to stock up on solutions. */
export const powChallengeSeconds = 10 * minute;
/**
 * Used challenges remembered at most (each until it expires). Reaching it takes this many solved
 * challenges in 10 minutes; past it solutions are refused until old ones expire, never forgotten early.
 */
export const maxUsedChallenges = 100_000;
/**
 * The surge gate's quiet period, in windows (BOARD_REGISTRATION_SURGE_MINUTES, an hour by
 * default): it reopens the door six windows after it closed it, and then at the first moment the
 * last window saw fewer than half the threshold. Why six: a wave that pauses for an hour must not
 * find the door open again; a real board's moderators answer within hours anyway.
 */
export const surgeQuietWindows = 6;
/** The moderators' list of the last wave's accounts shows at most 500 (oldest first): enough to judge a wave, one bounded read. */
export const maxWaveAccounts = 500;

// New accounts (the rules: lib/accounts/standing.ts)

/** A new account's first 10 minutes pass without links and images: most spam is exactly that. */
export const newAccountLinkDelaySeconds = 10 * minute;
