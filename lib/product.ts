/**
 * Every product limit of the board: the lengths (in code points), counts, pages and times (in
 * seconds unless the name says otherwise) a user or an API client meets; docs/API.md states each.
 * The checks, the German messages (lib/messages.ts), the OpenAPI document and the front end
 * (web/static/limits.js, written by lib/pages/front-end-limits.ts) all read them here, so this
 * module holds only numbers. The abuse brakes have their own tables (lib/limits/), the rules for
 * new accounts theirs (lib/accounts/standing.ts).
 */

const minute = 60;
const hour = 3600;
const day = 86_400;

export const maxContentLength = 1000;
/** An image's description: a sentence or two, which screen readers read at once. */
export const maxAltLength = 300;
/**
 * Why a bound on depth: every reply rewrites its ancestors' rows and every thread read walks them,
 * so a chain thousands deep let one account slow every reader and its own deletion.
 */
export const maxReplyDepth = 200;
/**
 * How many ancestors of a remote reply the board fetches to reach one of its own entries. Why a
 * bound: each is a request to another server, and a chain of any length can be made to order.
 */
export const maxFetchedAncestors = 5;
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
export const maxReportReasonLength = 500;
/**
 * Tallies asked for in one request: a page shows up to 100 entries (feed 20 and their latest 20, a
 * thread up to 100 replies).
 */
export const maxBulkPids = 100;

export const feedPageSize = 20;
export const maxFeedPage = 100;
export const maxThreadReplies = 100;
/** Why a bound on ancestors: a deep chain made every read near its bottom carry megabytes of them. */
export const maxNearAncestors = 99;
export const latestMaxDepth = 50;
export const atomFeedSize = 50;

export const minUsernameLength = 3;
export const maxUsernameLength = 32;
/** The upper bound bounds the work one request can ask of the hasher. */
export const minPasswordLength = 10;
export const maxPasswordLength = 1024;
/**
 * A login's `timeout`; a day when the form names none. Why at least a minute: a shorter session is
 * useless (the form offers an hour and up).
 */
export const minLoginSeconds = minute;
export const maxLoginSeconds = 365 * day;
export const defaultLoginSeconds = day;
export const maxSessionDescriptionLength = 200;
export const maxListedSessions = 100;
/** Why 72 hours: long enough to reach someone by another channel, short enough to go stale. */
export const resetLinkLifetimeSeconds = 72 * hour;
/** Why a bound: the front end filters with the whole list on every page, so it must stay small. */
export const maxMutes = 1000;
/**
 * Why a bound: each passkey is a row the list and every registration's exclude list carry; 20
 * covers every device a person has.
 */
export const maxPasskeysPerAccount = 20;
export const maxPasskeyNameLength = 64;
export const recoveryCodeCount = 10;
export const passkeyChallengeSeconds = 5 * minute;
export const passkeyPromptMs = 2 * minute * 1000;
/**
 * Sign-in challenges outstanding board-wide. Why a bound: each is a row anyone can make (held only
 * by the login rate limit per address); at the bound the oldest go first, so a flood can at worst
 * make an honest person press the passkey button again, and never grow the table.
 */
export const maxSignInChallenges = 10_000;
/** Per account (several tabs); the oldest goes first. */
export const maxRegisterChallenges = 5;

export const maxImageEdge = 1024;
export const avatarSize = 256;
/** Decompression-bomb guard: a larger image is refused before it is decoded. */
export const maxImagePixels = 50_000_000;
/**
 * Animated GIFs past these frames or pixels of frames in all are refused before decoding. Why: a
 * GIF of a thousand frames cost seconds of CPU and held the image slots avatars and thumbnails
 * share; an honest animation (30 s at 10 frames a second) fits, a longer clip belongs in a video
 * link.
 */
export const maxGifFrames = 300;
export const maxGifPixels = 20_000_000;
export const maxPreviewTitleLength = 300;

export const maxModReasonLength = 500;
/** Longer is what a permanent ban is for. */
export const maxBanDays = 3650;
export const queuePageSize = 20;
export const maxQueuePage = 100;
export const maxReportsPerEntry = 50;
export const modlogPageSize = 50;
export const maxModlogPage = 100;

export const maxSearchLength = 200;
/**
 * Why at most 10 terms (a quoted phrase is one): each is ANDed into the match and adds its index
 * lists to the work of a search, while people search with a few words. Why a 400 rather than
 * dropping the rest: results for fewer terms than typed would look like matches that are not.
 */
export const maxSearchTerms = 10;
export const notificationPageSize = 20;
/** Why a bound: a long list of names must not turn one entry into a way to ping the whole board. */
export const maxNotifiedPerEntry = 5;

/**
 * Why a bound: every follow is a row a new reply's fan-out may probe, and the front end loads the
 * whole list once per page load.
 */
export const maxFollows = 1000;
export const followingPageSize = 20;
/**
 * A reply's followers are told this many per transaction. Why 500: a batch holds the write lock
 * about as long as a batch of creates (bench/follow-fanout.ts), and nearly every thread is told in
 * one transaction right after its reply.
 */
export const followerBatch = 500;
/** Why a bound: each device costs every notification of the account a push request. */
export const maxPushDevices = 10;
/** Real push services' endpoints are 100–400 characters; more is not a subscription. */
export const maxEndpointLength = 1000;
/** Cut here: a lock screen shows a few lines, and a push stays far under what push services take. */
export const maxPushTextLength = 200;

export const statsWindowDays = 30;
export const topAsnCount = 10;
/**
 * Visitors one address (an IPv6 client: its /64) may bring per day. Why: a client changing its
 * User-Agent on every request counted as hundreds of visitors and used up the day's cap; a
 * household's few browsers still count. BOARD_LIMITS scales it; 0 lifts it.
 */
export const maxVisitorsPerAddress = 3;
/**
 * Why a daily cap: the User-Agent is the caller's to choose, so one client could otherwise grow the
 * day's set of visitors (memory and rows) without end.
 */
export const maxVisitorsPerDay = 250_000;

/**
 * Level 1 comes at this age with this many live entries no moderator removed. Why: a spam account
 * posts at once and is gone within hours; a person who stays two days and writes three entries that
 * stand shows a pattern a bot rarely waits for.
 */
export const trustAfterSeconds = 2 * day;
export const trustAfterLiveEntries = 3;
/**
 * Level 0's links and images: Discourse lets a new user post 2 links and 1 image; an entry here
 * holds one image, so the budget is a day's.
 */
export const levelZeroLinksPerEntry = 2;
export const levelZeroEntriesWithLinksPerDay = 2;
export const levelZeroImagesPerDay = 1;

/** So a moderator has something to read and a bot something to write. */
export const minApplicationLength = 10;
export const maxApplicationLength = 1000;
/**
 * Why a bound: a wave of bots must not grow the table without end; past it applications are refused
 * with a 429 until moderators decide or the wave passes.
 */
export const maxPendingApplications = 1000;
export const applicationsPageSize = 50;
export const maxApplicationsPage = 100;
/**
 * Then a rejected account goes and its name is free. Why 30 days: long enough to read the reason at
 * login after a holiday, short enough that a name does not stay blocked.
 */
export const rejectedKeptSeconds = 30 * day;
/** Why 7 days: long enough to reach a friend by another channel, short enough that a leaked link goes stale. */
export const inviteLifetimeSeconds = 7 * day;
export const maxAdminInviteDays = 365;
/** Enough to bring a few friends, too few to sell. */
export const maxOpenInvites = 5;
/**
 * Invites made in a week, revoked ones included; BOARD_LIMITS scales it, 0 lifts it. Why: the open
 * bound alone holds nothing over time (made and revoked in a loop, invites grew the table by
 * thousands of rows); twice it lets a member replace each once a week.
 */
export const maxInvitesPerWeek = 10;
export const inviteWeekSeconds = 7 * day;
export const maxListedInvites = 100;
/** So a ban of an invite tree stays one bounded transaction. */
export const maxTreeAccounts = 1000;
/** Time to fill in a form, too short to stock up on solutions. */
export const powChallengeSeconds = 10 * minute;
/**
 * Used challenges remembered, each until it expires; past the bound solutions are refused until old
 * ones expire, never forgotten early.
 */
export const maxUsedChallenges = 100_000;
/**
 * The surge gate reopens this many windows after it closed, then at the first moment the last
 * window saw fewer than half the threshold. Why six: a wave that pauses for an hour must not find
 * the door open again; moderators answer within hours anyway.
 */
export const surgeQuietWindows = 6;
/** Enough to judge a wave, in one bounded read. */
export const maxWaveAccounts = 500;

/** A new account's first minutes pass without links and images: most spam is exactly that. */
export const newAccountLinkDelaySeconds = 10 * minute;
