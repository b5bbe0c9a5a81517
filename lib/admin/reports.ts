import { systemClock } from '../clock.ts';
import type { Db } from '../db.ts';
import { findEntry } from '../entries.ts';
import { administrator, readAdminModlog, writeModlog, type AdminModlogRow } from '../modlog.ts';
import { closeReport, findOpenReport, listOpenReports } from '../reports.ts';
import { ArgumentError, commandArgs, failed, utcMinute, wholeNumber, withBoard, type AdminCommand } from './cli.ts';

/** The administrator's view of reports and of the whole moderation log, with the names the API leaves out. */

const reports: AdminCommand = {
  usage: 'reports',
  run(args, open) {
    commandArgs(args, 0, {});
    return withBoard(open, ({ config, db }) => {
      const openReports = listOpenReports(db);
      if (openReports.length === 0) console.log('no open reports');
      for (const r of openReports) {
        console.log(`#${r.id}  entry ${r.pid} (${r.reports_on_entry} open)  ${utcMinute(r.created_at)}  ${r.reporter || 'anonymous'}`);
        console.log(`    address: ${config.origin}/e/${r.pid}`);
        console.log(`    text:    ${JSON.stringify(r.excerpt)}${entryState(db, r.pid)}`);
        if (r.reason) console.log(`    reason:  ${JSON.stringify(r.reason)}`);
      }
      return 0;
    });
  },
};

/** " (deleted by its author)" and the like: the administrator still sees a removed entry's text. */
function entryState(db: Db, pid: number): string {
  const entry = findEntry(db, pid);
  if (!entry) return ' (gone)';
  if (entry.removed) return ' (removed)';
  return entry.deleted ? ' (deleted by its author)' : '';
}

/** Closes one report as dismissed; like the API's dismiss it writes a public log row (by "admin"). */
const reportClose: AdminCommand = {
  usage: 'report-close <id>',
  run(args, open) {
    const id = wholeNumber(commandArgs(args, 1, {}).words[0]!, 'the report id');
    return withBoard(open, ({ db }) => {
      const now = systemClock.now();
      const closed = db.tx(() => {
        const report = findOpenReport(db, id);
        if (!report) return false;
        const author = findEntry(db, report.pid)?.uid ?? 0;
        const logId = writeModlog(db, administrator, { action: 'dismiss', pid: report.pid, uid: author }, now);
        return closeReport(db, id, logId, now);
      });
      if (!closed) return failed(`no open report #${id}`);
      console.log(`closed report #${id}`);
      return 0;
    });
  },
};

/** `ban Anna until 2026-12-01 06:30 UTC`, `remove entry 12 (Anna)`: one line per log row. */
function describe(row: AdminModlogRow): string {
  const who = row.username || (row.pid ? '' : '(deleted account)');
  const target = row.pid ? `entry ${row.pid}${who ? ` (${who})` : ''}` : who;
  const until = row.action !== 'ban' ? '' : row.until === -1 ? ' permanently' : ` until ${utcMinute(row.until)} UTC`;
  const reason = row.reason ? `  ${JSON.stringify(row.reason)}` : '';
  return `#${row.id}  ${utcMinute(row.created_at)}  ${row.action} ${target}${until}  by ${row.moderator}${reason}`;
}

const modlog: AdminCommand = {
  usage: 'modlog [page]',
  run(args, open) {
    if (args.length > 1) throw new ArgumentError('takes at most one page number');
    const { words } = commandArgs(args, args.length, {});
    const page = words.length ? wholeNumber(words[0]!, 'the page', 100) : 0;
    return withBoard(open, ({ db }) => {
      const rows = readAdminModlog(db, page);
      if (rows.length === 0) console.log(page ? `nothing on page ${page}` : 'no moderation actions yet');
      for (const row of rows) console.log(describe(row));
      return 0;
    });
  },
};

export const reportCommands: Record<string, AdminCommand> = { reports, 'report-close': reportClose, modlog };
