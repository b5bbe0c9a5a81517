/** An OpenAPI tag and what it covers: a group of rows of the route table. */
export interface Tag {
  readonly name: string;
  readonly description: string;
}

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
  passkeys: {
    name: 'Passkeys and recovery codes',
    description:
      'Sign-in with passkeys (WebAuthn: discoverable, RP ID and origin from BOARD_ORIGIN) and recovery codes for a lost password.',
  },
  moderation: {
    name: 'Moderation',
    description:
      "For moderators (403 mod.required for everyone else, checked right after the session; then the actions' write limits, 429 rate.limited); the log is public.",
  },
  registration: {
    name: 'Registration',
    description:
      "How people get in (BOARD_REGISTRATION: open, approval, invite, closed), proof of work, invites, the moderators' queue of applications, the surge gate and trust levels.",
  },
  finding: {
    name: 'Search, notifications and feeds',
    description: 'Full-text search, notifications of replies and mentions, and the Atom feeds.',
  },
  followAndPush: {
    name: 'Following and Web Push',
    description: 'Following an entry’s subtree, and push notifications to the own devices.',
  },
  operations: {
    name: 'Statistics and operations',
    description: 'Public statistics, the health check and this document.',
  },
  federation: {
    name: 'Federation',
    description:
      'ActivityPub (BOARD_FEDERATION allowlist or open; with off every path here answers 404): WebFinger, NodeInfo, the actors, their inboxes, outboxes and followers. Not JSON in the `error` shape: these answer what ActivityPub servers read.',
  },
  pages: { name: 'Pages and files', description: 'HTML pages and files, not JSON (only errors such as 405 are JSON).' },
} as const satisfies Record<string, Tag>;
