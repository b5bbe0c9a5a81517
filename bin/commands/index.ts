import type { ListedCommand } from '../cli.ts';

/**
 * THE command table of bin/board-admin, in the order `board-admin help` lists them: each command's
 * name, arguments and summary, and where its code is. Why the code loads only when its command
 * runs: a cron run of `backup` then starts without the moderation, registration and preview code.
 * Adding a command is one entry here and its CommandBody in a file beside this one.
 */
export const commands: readonly ListedCommand[] = [
  {
    name: 'reset-link',
    usage: '<username>',
    summary: 'print a one-time password reset link (72 hours)',
    load: async () => (await import('./accounts.ts')).resetLink,
  },
  {
    name: 'reports',
    usage: '',
    summary: 'list open reports: id, entry and its address, reporter, reason',
    load: async () => (await import('./reports.ts')).reports,
  },
  {
    name: 'report-close',
    usage: '<id>',
    summary: 'close one open report (logged as dismissed)',
    load: async () => (await import('./reports.ts')).reportClose,
  },
  {
    name: 'remove',
    usage: '<pid> --reason TEXT',
    summary: 'remove an entry with a public reason (restore-entry undoes it)',
    load: async () => (await import('./moderation.ts')).remove,
  },
  {
    name: 'restore-entry',
    usage: '<pid>',
    summary: 'undo the removal of an entry',
    load: async () => (await import('./moderation.ts')).restoreEntryCommand,
  },
  {
    name: 'ban',
    usage: '<username> --reason TEXT [--days N] [--purge]',
    summary: 'ban an account, for N days or for good (--purge: and remove its entries)',
    load: async () => (await import('./moderation.ts')).ban,
  },
  {
    name: 'unban',
    usage: '<username>',
    summary: 'lift the ban of an account',
    load: async () => (await import('./moderation.ts')).unban,
  },
  {
    name: 'avatar-remove',
    usage: '<username> --reason TEXT',
    summary: "remove an account's avatar with a public reason",
    load: async () => (await import('./moderation.ts')).avatarRemove,
  },
  {
    name: 'mod',
    usage: 'add|remove <username> | mod list',
    summary: 'make an account a moderator, end the role, list the moderators',
    load: async () => (await import('./accounts.ts')).mod,
  },
  {
    name: 'user-add',
    usage: '<username>',
    summary: 'create an account by hand and print a link to set its password',
    load: async () => (await import('./registration.ts')).userAddCommand,
  },
  {
    name: 'invite',
    usage: '[--days N]',
    summary: 'print an invite link (single use, 7 days or --days N)',
    load: async () => (await import('./registration.ts')).inviteCommand,
  },
  {
    name: 'applications',
    usage: '',
    summary: 'list the registration applications waiting, oldest first',
    load: async () => (await import('./registration.ts')).applicationsCommand,
  },
  {
    name: 'approve',
    usage: '<username>',
    summary: 'approve a registration application: the account can log in',
    load: async () => (await import('./registration.ts')).approveCommand,
  },
  {
    name: 'reject',
    usage: '<username> [--reason TEXT]',
    summary: 'reject a registration application',
    load: async () => (await import('./registration.ts')).rejectCommand,
  },
  {
    name: 'reject-between',
    usage: '<from> <to> [--reason TEXT]',
    summary: 'reject every application registered in a span of time (a wave)',
    load: async () => (await import('./registration.ts')).rejectBetweenCommand,
  },
  {
    name: 'registration',
    usage: '[open|approval|invite|closed]',
    summary: 'show or set how people get in: open, approval, invite, closed',
    load: async () => (await import('./registration.ts')).registrationCommand,
  },
  {
    name: 'federation',
    usage: 'allow|block|unblock <instance> | list',
    summary: 'allow, block or unblock another server for federation, or list them',
    load: async () => (await import('./federation.ts')).federationCommand,
  },
  {
    name: 'modlog',
    usage: '[page] | modlog [--by NAME] [--since TIME] [--until TIME]',
    summary: "the moderation log with who did what (--by NAME --since TIME: one moderator's actions)",
    load: async () => (await import('./reports.ts')).modlog,
  },
  {
    name: 'backup',
    usage: '[--with-media] [--force] <file>',
    summary: 'consistent copy of the live database (--with-media: and its media, as one tar file)',
    load: async () => (await import('./backups.ts')).backup,
  },
  {
    name: 'restore',
    usage: '<file>',
    summary: 'put a backup or a --with-media archive back (refuses while a server runs)',
    load: async () => (await import('./backups.ts')).restore,
  },
  {
    name: 'verify',
    usage: '<file> | --data',
    summary: 'check a backup file, or with --data the board in BOARD_DATA (exit 1 on a problem)',
    load: async () => (await import('./backups.ts')).verify,
  },
  {
    name: 'gc-media',
    usage: '',
    summary: 'remove media files no row references (older than an hour)',
    load: async () => (await import('./maintenance.ts')).gcMedia,
  },
  {
    name: 'previews',
    usage: '[--all]',
    summary: 'fetch link previews for existing entries (--all: every link)',
    load: async () => (await import('./maintenance.ts')).previews,
  },
  {
    name: 'tor-refresh',
    usage: '[URL]',
    summary: 'download the Tor exit list into BOARD_TOR_EXITS',
    load: async () => (await import('./maintenance.ts')).torRefreshCommand,
  },
];
