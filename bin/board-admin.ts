import { ConfigError, loadConfig, prepareDataDir, type Config } from '../lib/config.ts';
import { openDb, type Db } from '../lib/db.ts';
import { systemClock } from '../lib/clock.ts';
import { closeReport, listOpenReports } from '../lib/reports.ts';
import { createResetLink } from '../lib/reset-links.ts';
import { torBulkExitListUrl, torRefresh } from '../lib/admin/tor-refresh.ts';
import { findUserByName } from '../lib/users.ts';

const usage = `board-admin: the board's command line (uses the server's BOARD_* settings)

  reset-link <username>   print a one-time password reset link (72 hours)
  tor-refresh [URL]       download the Tor exit list into BOARD_TOR_EXITS
                          (default ${torBulkExitListUrl})
  reports                 list open reports (id, entry, excerpt, reason, reporter)
  report-close <id>       close one open report
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

function reports(args: string[]): number {
  if (args.length) throw new UsageError('reports takes no arguments');
  const { db } = openBoard();
  try {
    const open = listOpenReports(db);
    if (open.length === 0) console.log('no open reports');
    for (const r of open) {
      const when = new Date(r.created_at * 1000).toISOString().slice(0, 16).replace('T', ' ');
      const reporter = r.reporter_uid ? `user ${r.reporter_uid}` : 'anonymous';
      console.log(`#${r.id}  entry ${r.pid} (${r.reports_on_entry} open)  ${when}  ${reporter}`);
      console.log(`    text:   ${JSON.stringify(r.excerpt)}`);
      if (r.reason) console.log(`    reason: ${JSON.stringify(r.reason)}`);
    }
    return 0;
  } finally {
    db.close();
  }
}

function reportClose(args: string[]): number {
  const [raw] = args;
  if (!raw || args.length !== 1 || !/^\d+$/.test(raw)) throw new UsageError('report-close needs one report id');
  const { db } = openBoard();
  try {
    if (!closeReport(db, Number(raw), systemClock.now())) {
      console.error(`board-admin: no open report #${raw}`);
      return 1;
    }
    console.log(`closed report #${raw}`);
    return 0;
  } finally {
    db.close();
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
  switch (command) {
    case 'reset-link':
      return resetLink(args);
    case 'reports':
      return reports(args);
    case 'report-close':
      return reportClose(args);
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
