import * as account from './api/account.ts';
import * as auth from './api/auth.ts';
import * as entries from './api/entries.ts';
import { exportAccount } from './api/export.ts';
import { health } from './api/health.ts';
import { openApiDocument } from './api/openapi.ts';
import * as moderation from './api/moderation.ts';
import * as mutes from './api/mutes.ts';
import * as notifications from './api/notifications.ts';
import * as reports from './api/reports.ts';
import { search } from './api/search.ts';
import * as stats from './api/stats.ts';
import * as users from './api/users.ts';
import * as votes from './api/votes.ts';
import type { Route } from './http/route.ts';
import * as atom from './pages/atom.ts';
import * as files from './pages/files.ts';
import * as publicPages from './pages/public.ts';
import * as pages from './pages/shell.ts';
import * as sitemap from './pages/sitemap.ts';

/** THE route table: every endpoint of the board, in one place. Each has its entry in the OpenAPI document (lib/openapi/). */
export const routes: Route[] = [
  // Auth
  { method: 'POST', path: '/api/auth/login', handler: auth.login, rateLimit: 'login' },
  { method: 'POST', path: '/api/auth/newuser', handler: auth.register, rateLimit: 'newuser', writeLimit: 'register' },
  { method: 'POST', path: '/api/auth/logout', handler: auth.logout },
  { method: 'GET', path: '/api/auth/sessioninfo', handler: auth.sessionInfo, auth: true },
  // The front end's session probe: always 200, so a logged-out page load logs no error.
  { method: 'GET', path: '/api/auth/whoami', handler: users.whoami },
  { method: 'POST', path: '/api/auth/reset/check', handler: auth.checkReset, rateLimit: 'reset' },
  { method: 'POST', path: '/api/auth/reset', handler: auth.reset, rateLimit: 'reset' },

  // Entries
  { method: 'GET', path: '/api/entry/feed/:page', handler: entries.feed },
  { method: 'POST', path: '/api/entry/create', handler: entries.create, auth: true, writeLimit: 'create' },
  { method: 'GET', path: '/api/entry/:pid/thread', handler: entries.thread },
  { method: 'POST', path: '/api/entry/:pid/edit', handler: entries.edit, auth: true, writeLimit: 'edit' },
  { method: 'POST', path: '/api/entry/:pid/delete', handler: entries.remove, auth: true, writeLimit: 'delete' },
  { method: 'POST', path: '/api/entry/:pid/bump', handler: entries.bump, auth: true, writeLimit: 'bump' },
  { method: 'POST', path: '/api/entry/:pid/report', handler: reports.report, rateLimit: 'report' },

  // Votes
  { method: 'GET', path: '/api/entry/votes', handler: votes.bulkVotes },
  { method: 'GET', path: '/api/entry/:pid/votes', handler: votes.votes },
  { method: 'POST', path: '/api/entry/:pid/vote', handler: votes.vote, auth: true, writeLimit: 'vote' },

  // Users
  { method: 'GET', path: '/api/u/:username/feed/:page', handler: entries.userFeed },
  { method: 'GET', path: '/api/u/:username/info', handler: users.publicInfo },
  { method: 'GET', path: '/api/user/info', handler: users.ownInfo, auth: true },
  { method: 'POST', path: '/api/user/rename', handler: users.rename, auth: true, writeLimit: 'rename' },
  { method: 'POST', path: '/api/user/avatar', handler: users.changeAvatar, auth: true, writeLimit: 'avatar' },
  // The password check shares the login bucket: a stolen session must not become a guessing oracle.
  { method: 'POST', path: '/api/user/delete', handler: users.deleteOwnAccount, auth: true, rateLimit: 'login' },

  // Account self-service (docs/API.md "Account self-service")
  // The current-password check shares the login bucket, as account deletion does.
  { method: 'POST', path: '/api/user/password', handler: account.changePassword, auth: true, rateLimit: 'login' },
  { method: 'GET', path: '/api/user/sessions', handler: account.sessions, auth: true },
  { method: 'POST', path: '/api/user/sessions/revoke-others', handler: account.revokeOtherSessions, auth: true },
  { method: 'POST', path: '/api/user/sessions/:id/revoke', handler: account.revokeSession, auth: true },
  // A read, but a costly one: held to a per-account limit like a write.
  { method: 'GET', path: '/api/user/export', handler: exportAccount, auth: true, writeLimit: 'export' },
  { method: 'POST', path: '/api/user/mute', handler: mutes.mute, auth: true, writeLimit: 'mute' },
  { method: 'POST', path: '/api/user/unmute', handler: mutes.unmute, auth: true, writeLimit: 'mute' },
  { method: 'GET', path: '/api/user/mutes', handler: mutes.mutes, auth: true },

  // Moderation (docs/API.md "Moderation")
  { method: 'GET', path: '/api/mod/reports/:page', handler: moderation.reportQueue, mod: true },
  { method: 'GET', path: '/api/mod/queue', handler: moderation.queueSize, mod: true },
  { method: 'POST', path: '/api/mod/entry/:pid/remove', handler: moderation.remove, mod: true, writeLimit: 'modEntry' },
  {
    method: 'POST',
    path: '/api/mod/entry/:pid/restore',
    handler: moderation.restore,
    mod: true,
    writeLimit: 'modEntry',
  },
  {
    method: 'POST',
    path: '/api/mod/entry/:pid/dismiss',
    handler: moderation.dismiss,
    mod: true,
    writeLimit: 'modEntry',
  },
  { method: 'POST', path: '/api/mod/user/:username/ban', handler: moderation.ban, mod: true, writeLimit: 'modAccount' },
  {
    method: 'POST',
    path: '/api/mod/user/:username/unban',
    handler: moderation.unban,
    mod: true,
    writeLimit: 'modAccount',
  },
  {
    method: 'POST',
    path: '/api/mod/user/:username/avatar/remove',
    handler: moderation.removeAvatar,
    mod: true,
    writeLimit: 'modAccount',
  },
  { method: 'GET', path: '/api/modlog/:page', handler: moderation.publicLog },

  // Notifications (docs/API.md "Notifications of replies and mentions"); /unread before /{page}.
  { method: 'GET', path: '/api/user/notifications/unread', handler: notifications.unread, auth: true },
  { method: 'GET', path: '/api/user/notifications/:page', handler: notifications.notifications, auth: true },
  { method: 'POST', path: '/api/user/notifications/read', handler: notifications.read, auth: true },
  {
    method: 'POST',
    path: '/api/user/feed-token',
    handler: notifications.newFeedToken,
    auth: true,
    writeLimit: 'feedToken',
  },
  { method: 'POST', path: '/api/user/feed-token/revoke', handler: notifications.revokeFeedToken, auth: true },

  // Search (docs/API.md "Search")
  { method: 'GET', path: '/api/search/:page', handler: search, rateLimit: 'search' },

  // Statistics
  { method: 'GET', path: '/api/stats', handler: stats.summary },
  { method: 'GET', path: '/api/stats/detail', handler: stats.detail },

  // Operations
  { method: 'GET', path: '/api/health', handler: health },
  // The machine-readable contract of every route here (lib/openapi/: one entry per route).
  { method: 'GET', path: '/api/openapi.json', handler: (ctx) => openApiDocument(ctx, routes) },

  // Pages and files (not JSON)
  // The public pages are drawn on the server too (docs/API.md "Pages without JavaScript").
  { method: 'GET', path: '/', handler: publicPages.home },
  { method: 'GET', path: '/e/:pid', handler: publicPages.entryPage },
  { method: 'GET', path: '/u/:username', handler: publicPages.userPage },
  { method: 'GET', path: '/reset', handler: pages.appPage },
  { method: 'GET', path: '/login', handler: pages.appPage },
  { method: 'GET', path: '/register', handler: pages.appPage },
  { method: 'GET', path: '/settings', handler: pages.appPage },
  { method: 'GET', path: '/stats', handler: publicPages.stats },
  { method: 'GET', path: '/suche', handler: publicPages.searchPage },
  { method: 'GET', path: '/mod', handler: pages.appPage },
  { method: 'GET', path: '/modlog', handler: publicPages.modlog },
  { method: 'GET', path: '/benachrichtigungen', handler: pages.appPage },
  // Atom feeds (docs/API.md "Atom feeds"); the private one's path is never logged with its token.
  { method: 'GET', path: '/feed.atom', handler: atom.boardAtom },
  { method: 'GET', path: '/e/:pid/feed.atom', handler: atom.threadAtom },
  { method: 'GET', path: '/u/:username/feed.atom', handler: atom.userAtom },
  { method: 'GET', path: '/n/:token', handler: atom.privateAtom },
  // docs/API.md "Robots and sitemap"
  { method: 'GET', path: '/robots.txt', handler: sitemap.robots },
  { method: 'GET', path: '/sitemap.xml', handler: sitemap.sitemap },
  { method: 'GET', path: '/sitemap/:file', handler: sitemap.sitemapPart },
  { method: 'GET', path: '/static/media/*', handler: files.media },
  { method: 'GET', path: '/static/*', handler: files.staticFile },
];
