import * as account from './api/account.ts';
import * as activityPub from './api/activitypub.ts';
import * as auth from './api/auth.ts';
import * as entries from './api/entries.ts';
import * as feeds from './api/feeds.ts';
import * as federationInstances from './api/federation-instances.ts';
import * as follows from './api/follows.ts';
import { exportAccount } from './api/export.ts';
import { health } from './api/health.ts';
import * as impression from './pages/impression.ts';
import * as moderation from './api/moderation.ts';
import * as mutes from './api/mutes.ts';
import * as notifications from './api/notifications.ts';
import * as push from './api/push.ts';
import * as passkeys from './api/passkeys.ts';
import * as recovery from './api/recovery.ts';
import { openApi } from './api/openapi.ts';
import * as registration from './api/registration.ts';
import * as reports from './api/reports.ts';
import { search } from './api/search.ts';
import * as stats from './api/stats.ts';
import * as users from './api/users.ts';
import * as votes from './api/votes.ts';
import { get, group, post, type Route } from './http/route.ts';
import { tags } from './openapi/tags.ts';
import * as atom from './pages/atom.ts';
import * as files from './pages/files.ts';
import { serviceWorker } from './pages/service-worker.ts';
import * as publicPages from './pages/public.ts';
import * as pages from './pages/shell.ts';
import * as sitemap from './pages/sitemap.ts';

/**
 * THE route table: every endpoint of the board, tried in this order. A row is the whole
 * description of its endpoint: method, path (its `:name` parameters are what the handler may
 * read), the checks before the handler (auth, mod, rateLimit, writeLimit), `cache` when the fast
 * path answers it from the response cache (`cacheQuery`: with a query string too), `shared` when
 * a cache in front may keep its answer for logged-out readers, and the endpoint, whose handler and
 * OpenAPI operation sit side by side in the file named here. Each group is one tag of /api/openapi.json.
 */
export const routes: readonly Route[] = [
  ...group(
    tags.auth,
    post('/api/auth/login', auth.login, { rateLimit: 'login' }),
    post('/api/auth/newuser', auth.register, { rateLimit: 'newuser', writeLimit: 'register' }),
    post('/api/auth/logout', auth.logout),
    get('/api/auth/sessioninfo', auth.sessionInfo, { auth: true }),
    // The front end's session probe: always 200, so a logged-out page load logs no error.
    get('/api/auth/whoami', users.whoami),
    post('/api/auth/reset/check', auth.checkReset, { rateLimit: 'reset' }),
    post('/api/auth/reset', auth.reset, { rateLimit: 'reset' }),
  ),

  ...group(
    tags.entries,
    get('/api/entry/feed/:page', feeds.feed, { cache: feeds.cachedFeed, shared: true }),
    post('/api/entry/create', entries.create, { auth: true, writeLimit: 'create' }),
    get('/api/entry/:pid/thread', feeds.thread, { cache: feeds.cachedThread, shared: true }),
    post('/api/entry/:pid/edit', entries.edit, { auth: true, writeLimit: 'edit' }),
    post('/api/entry/:pid/delete', entries.remove, { auth: true, writeLimit: 'delete' }),
    post('/api/entry/:pid/bump', entries.bump, { auth: true, writeLimit: 'bump' }),
    post('/api/entry/:pid/report', reports.report, { rateLimit: 'report' }),
    get('/api/entry/votes', votes.bulkVotes, { shared: true }),
    get('/api/entry/:pid/votes', votes.votes, { shared: true }),
    post('/api/entry/:pid/vote', votes.vote, { auth: true, writeLimit: 'vote' }),
  ),

  ...group(
    tags.users,
    get('/api/u/:username/feed/:page', feeds.userFeed, { shared: true }),
    get('/api/u/:username/info', users.publicInfo, { shared: true }),
    get('/api/user/info', users.ownInfo, { auth: true }),
    post('/api/user/rename', users.rename, { auth: true, writeLimit: 'rename' }),
    post('/api/user/avatar', users.changeAvatar, { auth: true, writeLimit: 'avatar' }),
    // Deletion and account self-service (docs/API.md "Account self-service"): the current-password check shares
    // the login bucket, so a stolen session must not become a guessing oracle.
    post('/api/user/delete', users.deleteOwnAccount, { auth: true, rateLimit: 'login' }),
    post('/api/user/password', account.changePassword, { auth: true, rateLimit: 'login' }),
    get('/api/user/sessions', account.sessions, { auth: true }),
    post('/api/user/sessions/revoke-others', account.revokeOtherSessions, { auth: true }),
    post('/api/user/sessions/:id/revoke', account.revokeSession, { auth: true }),
    // A read, but a costly one: held to a per-account limit like a write.
    get('/api/user/export', exportAccount, { auth: true, writeLimit: 'export' }),
    post('/api/user/mute', mutes.mute, { auth: true, writeLimit: 'mute' }),
    post('/api/user/unmute', mutes.unmute, { auth: true, writeLimit: 'mute' }),
    get('/api/user/mutes', mutes.mutes, { auth: true }),
    get('/api/user/federation', activityPub.ownFederation, { auth: true, federation: true }),
  ),

  // docs/API.md "Passkeys" and "Recovery codes". Every row that checks a credential (a signature,
  // a password, a code) counts in the login bucket, as login does.
  ...group(
    tags.passkeys,
    post('/api/auth/passkey/options', passkeys.signInOptions, { rateLimit: 'login' }),
    post('/api/auth/passkey/login', passkeys.signIn, { rateLimit: 'login' }),
    post('/api/user/passkeys/options', passkeys.newPasskeyOptions, { auth: true, rateLimit: 'login' }),
    get('/api/user/passkeys', passkeys.passkeys, { auth: true }),
    post('/api/user/passkeys', passkeys.addNewPasskey, { auth: true }),
    post('/api/user/passkeys/:id/delete', passkeys.removePasskey, { auth: true, rateLimit: 'login' }),
    post('/api/auth/recover', recovery.recover, { rateLimit: 'login' }),
    get('/api/user/recovery-codes', recovery.recoveryCodes, { auth: true }),
    post('/api/user/recovery-codes', recovery.newRecoveryCodes, { auth: true, rateLimit: 'login' }),
  ),

  ...group(
    tags.moderation,
    get('/api/mod/reports/:page', moderation.reportQueue, { mod: true }),
    get('/api/mod/queue', moderation.queueSize, { mod: true }),
    post('/api/mod/entry/:pid/remove', moderation.remove, { mod: true, writeLimit: 'modEntry' }),
    post('/api/mod/entry/:pid/restore', moderation.restore, { mod: true, writeLimit: 'modEntry' }),
    post('/api/mod/entry/:pid/dismiss', moderation.dismiss, { mod: true, writeLimit: 'modEntry' }),
    post('/api/mod/user/:username/ban', moderation.ban, { mod: true, writeLimit: 'modAccount' }),
    post('/api/mod/user/:username/unban', moderation.unban, { mod: true, writeLimit: 'modAccount' }),
    post('/api/mod/user/:username/avatar/remove', moderation.removeAvatar, { mod: true, writeLimit: 'modAccount' }),
    get('/api/modlog/:page', moderation.publicLog, { shared: true }),
    get('/api/mod/federation/instances', federationInstances.instances, { mod: true, federation: true }),
    post('/api/mod/federation/instances', federationInstances.changeInstanceState, {
      mod: true,
      writeLimit: 'modAccount',
      federation: true,
    }),
  ),

  ...group(
    tags.registration,
    get('/api/auth/registration', registration.registrationInfo),
    get('/api/auth/challenge', registration.challenge),
    post('/api/user/invites', registration.newInvite, { auth: true, writeLimit: 'invite' }),
    get('/api/user/invites', registration.invites, { auth: true }),
    post('/api/user/invites/:id/revoke', registration.revoke, { auth: true }),
    get('/api/mod/applications/:page', registration.applications, { mod: true }),
    post('/api/mod/applications/reject', registration.rejectBetween, { mod: true, writeLimit: 'modAccount' }),
    post('/api/mod/applications/:username/approve', registration.approve, { mod: true, writeLimit: 'modAccount' }),
    post('/api/mod/applications/:username/reject', registration.reject, { mod: true, writeLimit: 'modAccount' }),
    get('/api/mod/user/:username', registration.accountForModerators, { mod: true }),
    get('/api/mod/registration', registration.registrationState, { mod: true }),
    post('/api/mod/registration', registration.setRegistration, { mod: true, writeLimit: 'modAccount' }),
    post('/api/mod/user/:username/trust', registration.setTrust, { mod: true, writeLimit: 'modAccount' }),
  ),

  ...group(
    tags.finding,
    get('/api/user/notifications/unread', notifications.unread, { auth: true }),
    get('/api/user/notifications/:page', notifications.notifications, { auth: true }),
    post('/api/user/notifications/read', notifications.read, { auth: true }),
    post('/api/user/feed-token', notifications.newFeedToken, { auth: true, writeLimit: 'feedToken' }),
    post('/api/user/feed-token/revoke', notifications.revokeFeedToken, { auth: true }),
    get('/api/search/:page', search, { rateLimit: 'search', shared: true }),
    // Atom feeds (docs/API.md "Atom feeds"); the private one's path is never logged with its token.
    get('/feed.atom', atom.boardAtom, { shared: true }),
    get('/e/:pid/feed.atom', atom.threadAtom, { shared: true }),
    get('/u/:username/feed.atom', atom.userAtom, { shared: true }),
    get('/n/:token', atom.privateAtom),
  ),

  ...group(
    tags.followAndPush,
    post('/api/entry/:pid/follow', follows.follow, { auth: true, writeLimit: 'follow' }),
    post('/api/entry/:pid/unfollow', follows.unfollow, { auth: true, writeLimit: 'follow' }),
    get('/api/user/following/state', follows.followingState, { auth: true }),
    get('/api/user/following/:page', follows.following, { auth: true }),
    post('/api/user/following/own-threads', follows.followOwnThreads, { auth: true }),
    get('/api/user/push', push.pushState, { auth: true }),
    post('/api/user/push', push.subscribe, { auth: true, writeLimit: 'push' }),
    post('/api/user/push/delete', push.unsubscribe, { auth: true }),
    // The service worker lives at the root so that its scope can be the whole board.
    get('/sw.js', serviceWorker),
  ),

  ...group(
    tags.operations,
    get('/api/stats', stats.summary),
    get('/api/stats/detail', stats.detail),
    post('/api/impression', impression.impression),
    get('/api/impression', impression.impressionImage),
    get('/api/health', health),
    get(
      '/api/openapi.json',
      openApi(() => routes),
    ),
  ),

  // docs/API.md "Federation": Fedify's paths (lib/api/activitypub.ts); none exists while BOARD_FEDERATION=off.
  ...group(
    tags.federation,
    get('/.well-known/webfinger', activityPub.webFinger, { federation: true }),
    get('/.well-known/nodeinfo', activityPub.nodeInfoLinks, { federation: true }),
    get('/nodeinfo/2.1', activityPub.nodeInfo, { federation: true }),
    get('/ap/actor/:identifier', activityPub.actor, { federation: true }),
    post('/ap/actor/:identifier/inbox', activityPub.inbox, { federation: true }),
    post('/ap/inbox', activityPub.sharedInbox, { federation: true }),
    get('/ap/actor/:identifier/outbox', activityPub.outbox, { federation: true }),
    get('/ap/actor/:identifier/followers', activityPub.followers, { federation: true }),
  ),

  // The front end's pages (the page shell; web/static/pages.js lists them for the front end) and files.
  ...group(
    tags.pages,
    // The public pages are drawn on the server too (docs/API.md "Pages without JavaScript"); the first
    // three count their views, and a proxy's notice of a view is answered before this table (lib/http/page-views.ts).
    get('/', publicPages.home, { cache: publicPages.cachedHome, cacheQuery: true, shared: true, views: true }),
    get('/e/:pid', publicPages.entryPage, {
      cache: publicPages.cachedEntryPage,
      shared: true,
      views: true,
      negotiated: true,
    }),
    get('/u/:username', publicPages.userPage, {
      cache: publicPages.cachedUserPage,
      cacheQuery: true,
      shared: true,
      views: true,
      negotiated: true,
    }),
    get('/reset', pages.resetPage, { shared: true }),
    get('/login', pages.loginPage, { shared: true }),
    get('/register', pages.registerPage, { shared: true }),
    get('/recover', pages.recoverPage, { shared: true }),
    get('/settings', pages.settingsPage, { shared: true }),
    get('/stats', publicPages.stats, { shared: true }),
    get('/suche', publicPages.searchPage, { cache: publicPages.cachedSearchPage, cacheQuery: true, shared: true }),
    get('/mod', pages.moderationPage, { shared: true }),
    get('/modlog', publicPages.modlog, { cache: publicPages.cachedModlog, cacheQuery: true, shared: true }),
    get('/benachrichtigungen', pages.notificationsPage, { shared: true }),
    get('/robots.txt', sitemap.robots, { shared: true }),
    get('/sitemap.xml', sitemap.sitemap, { shared: true }),
    get('/sitemap/:file', sitemap.sitemapPart, { shared: true }),
    get('/static/media/*', files.media),
    get('/static/vendor/simplewebauthn/*', files.webAuthnBrowser),
    get('/static/v/:version/*', files.versionedStaticFile),
    get('/static/*', files.staticFile),
  ),
];
