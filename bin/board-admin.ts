import { ConfigError, loadConfig, prepareDataDir, type Config } from '../lib/config.ts';
import { openDb, type Db } from '../lib/db.ts';
import { systemClock } from '../lib/clock.ts';
import { createResetLink } from '../lib/reset-links.ts';
import { backupDatabase, restoreDatabase } from '../lib/admin/backup.ts';
import { collectOrphanMedia, gcMinAgeSeconds } from '../lib/admin/gc-media.ts';
import { findCommand, runCommand } from '../lib/admin/cli.ts';
import { moderationCommands } from '../lib/admin/moderation.ts';
import { backfillPreviews } from '../lib/admin/previews.ts';
import { reportCommands } from '../lib/admin/reports.ts';
import { torBulkExitListUrl, torRefresh } from '../lib/admin/tor-refresh.ts';
import { findUserByName } from '../lib/users.ts';

const usage = `board-admin: the board's command line (uses the server's BOARD_* settings)

  reset-link <username>   print a one-time password reset link (72 hours)
  tor-refresh [URL]       download the Tor exit list into BOARD_TOR_EXITS
                          (default ${torBulkExitListUrl})
  reports                 list open reports (id, entry and its address, reporter, excerpt, reason)
  report-close <id>       close one open report (logged as dismissed)
  remove <pid> --reason TEXT
                          remove an entry (the reason is public); restore-entry <pid> undoes it
  ban <username> --reason TEXT [--days N] [--purge]
                          ban an account (permanently without --days); --purge also removes
                          its live entries; unban <username> lifts the ban
  avatar-remove <username> --reason TEXT
                          remove an account's avatar
  mod add|remove <username>, mod list
                          make an account a moderator, end the role, list the moderators
  modlog [page]           the moderation log with who did what, 50 a page, newest first
  backup <file>           consistent copy of the live database (safe while the server runs)
  restore <file>          put a backup back (refuses while a server uses BOARD_DATA)
  gc-media                remove media files no row references (older than an hour)
  previews [--all]        fetch link previews for existing entries: links without a
                          record or with one older than 30 days (--all: every link);
                          progress on stderr
  help                    this text
`;

/** Exit codes: 0 done, 1 the command failed, 2 unknown command or wrong arguments. */
class UsageError extends Error {}

function openBoard(): { config: Config; db: Db } {
  const config = loadConfig(process.env);
  prepareDataDir(config);
  return { config, db: openDb(config.dbPath) };
}

function resetLink(args: string[]): number {
  const [username] = args;
  if (!username || args.length !== 1) throw new UsageError('reset-link needs exactly one username');
  const { config, db } = openBoard();
  try {
    const user = findUserByName(db, username);
    if (!user) {
      console.error(`board-admin: no user named "${username}"`);
      return 1;
    }
    const token = createResetLink(db, user.uid, systemClock.now());
    console.log(`${config.origin}/reset#${token}`);
    return 0;
  } finally {
    db.close();
  }
}

async function backup(args: string[]): Promise<number> {
  const [file] = args;
  if (!file || args.length !== 1) throw new UsageError('backup needs exactly one target file');
  const config = loadConfig(process.env);
  const { pages } = await backupDatabase(config, file);
  console.log(`backed up ${config.dbPath} to ${file} (${pages} pages); copy ${config.mediaDir} with rsync too`);
  return 0;
}

function restore(args: string[]): number {
  const [file] = args;
  if (!file || args.length !== 1) throw new UsageError('restore needs exactly one backup file');
  const config = loadConfig(process.env);
  try {
    const { keptAs } = restoreDatabase(config, file);
    console.log(`restored ${file} to ${config.dbPath}${keptAs ? `; the replaced database is kept as ${keptAs}` : ''}`);
    return 0;
  } catch (err) {
    console.error(`board-admin: restore: ${(err as Error).message}`);
    return 1;
  }
}

async function gcMedia(args: string[]): Promise<number> {
  if (args.length) throw new UsageError('gc-media takes no arguments');
  const { config, db } = openBoard();
  try {
    const { removed, kept } = await collectOrphanMedia(config, db);
    for (const path of removed) console.log(`removed ${path}`);
    console.log(`removed ${removed.length} unreferenced files, kept ${kept} (files younger than ${gcMinAgeSeconds / 60} minutes are always kept)`);
    return 0;
  } finally {
    await db.close();
  }
}

async function previews(args: string[]): Promise<number> {
  const all = args[0] === '--all';
  if (args.length > 1 || (args.length === 1 && !all)) throw new UsageError('previews takes only --all');
  const { config, db } = openBoard();
  try {
    if (!config.previewEnabled) {
      console.error('board-admin: link previews are turned off (BOARD_PREVIEW=0)');
      return 1;
    }
    const result = await backfillPreviews(config, db, {
      all,
      clock: systemClock,
      log: (line) => console.error(line),
      progress: ({ done, total }) => process.stderr.write(`${done}/${total} done\n`),
    });
    console.log(`queued ${result.queued} links; ${result.done} fetched: ${result.saved} stored, ${result.failed} failed`);
    return 0;
  } finally {
    await db.close();
  }
}

async function torRefreshCommand(args: string[]): Promise<number> {
  if (args.length > 1) throw new UsageError('tor-refresh takes at most one URL');
  const config = loadConfig(process.env);
  try {
    const count = await torRefresh(config, args[0]);
    console.log(`wrote ${count} addresses to ${config.torExitsFile}`);
    return 0;
  } catch (err) {
    console.error(`board-admin: tor-refresh: ${(err as Error).message} (${config.torExitsFile} left unchanged)`);
    return 1;
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const moderation = findCommand(command, moderationCommands, reportCommands);
  if (moderation) return runCommand(command!, moderation, args, openBoard);
  switch (command) {
    case 'reset-link':
      return resetLink(args);
    case 'backup':
      return backup(args);
    case 'restore':
      return restore(args);
    case 'gc-media':
      return gcMedia(args);
    case 'previews':
      return previews(args);
    case 'tor-refresh':
      return torRefreshCommand(args);
    case 'help':
    case '--help':
      process.stdout.write(usage);
      return 0;
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`board-admin: ${err.message}\n\n${usage}`);
      process.exit(2);
    }
    console.error(`board-admin: ${err instanceof ConfigError ? err.message : (err as Error).stack}`);
    process.exit(1);
  },
);
