import type { Tag } from '../http/route.ts';

/** The OpenAPI document's tags: each names a group of rows of the route table (lib/routes.ts). */
export const tags = {
  auth: {
    name: 'Auth',
    description:
      'Login, registration, logout, the session and password resets. The session travels in the cookie `session`.',
  },
  entries: { name: 'Entries', description: 'The feed, threads, writing, bumping, votes and reports.' },
  users: {
    name: 'Users',
    description:
      'Profiles, and what an account can do about itself: rename, avatar, password, sessions, export, mutes, deletion.',
  },
  moderation: {
    name: 'Moderation',
    description:
      "For moderators (403 mod.required for everyone else, checked right after the session; then the actions' write limits, 429 rate.limited); the log is public.",
  },
  finding: {
    name: 'Search, notifications and feeds',
    description: 'Full-text search, notifications of replies and mentions, and the Atom feeds.',
  },
  operations: {
    name: 'Statistics and operations',
    description: 'Public statistics, the health check and this document.',
  },
  pages: { name: 'Pages and files', description: 'HTML pages and files, not JSON (only errors such as 405 are JSON).' },
} as const satisfies Record<string, Tag>;
