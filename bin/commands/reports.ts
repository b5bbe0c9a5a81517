import { systemClock } from '../../lib/clock.ts';
import type { Db } from '../../lib/db.ts';
import { findEntry } from '../../lib/entries.ts';
import { administrator, maxModlogPage, modlogPageSize, readAdminModlog, writeModlog, type AdminModlogRow } from '../../lib/modlog.ts';
import { closeReport, findOpenReport, listOpenReports } from '../../lib/reports.ts';
import { CommandFailure, type Command } from '../cli.ts';
import { utcMinute, wholeNumber } from './args.ts';

/** The administrator's view of reports and of the whole moderation log, with the names the API leaves out. */

export const reports: Command = {
  name: 'reports',
  summary: 'list open reports: id, entry and its address, reporter, reason',
  usage: '',
  help: `
Lists the open reports, grouped by entry: the report's id (for report-close), the entry, how many
reports are open on that entry, the time (UTC), the reporter's name (or "anonymous"), the
entry's address, an excerpt of its text (marked when the entry is deleted, removed or gone) and
the full reason. Prints "no open reports" when there are none.`,
  needsBoard: true,
  args: [0, 0],
  run({ config, db, print }) {
    const open = listOpenReports(db());
    if (open.length === 0) print('no open reports');
    for (const r of open) {
      print(`#${r.id}  entry ${r.pid} (${r.reports_on_entry} open)  ${utcMinute(r.created_at)}  ${r.reporter || 'anonymous'}`);
      print(`    address: ${config.origin}/e/${r.pid}`);
      print(`    text:    ${JSON.stringify(r.excerpt)}${entryState(db(), r.pid)}`);
      if (r.reason) print(`    reason:  ${JSON.stringify(r.reason)}`);
    }
    return 0;
  },
};

/** " (deleted by its author)" and the like: the administrator still sees a removed entry's text. */
function entryState(db: Db, pid: number): string {
  const entry = findEntry(db, pid);
  if (!entry) return ' (gone)';
  if (entry.removed) return ' (removed)';
  return entry.deleted ? ' (deleted by its author)' : '';
}

export const reportClose: Command = {
  name: 'report-close',
  summary: 'close one open report (logged as dismissed)',
  usage: '<id>',
  help: `
Closes the open report with this id (see "board-admin reports") without acting on the entry,
like a moderator's Verwerfen: the public log gets a "dismiss" row for the entry (by "admin" in
"board-admin modlog"). The reporter may report the entry again afterwards. Exit 1 when no open
report has that id.`,
  needsBoard: true,
  args: [1, 1],
  validate([id]) {
    wholeNumber(id!, 'the report id');
  },
  run({ args: [raw], db, print }) {
    const id = Number(raw);
    const now = systemClock.now();
    // Like the API's dismiss: the closing is public, so it writes its log row in the same transaction.
    const closed = db().tx(() => {
      const report = findOpenReport(db(), id);
      if (!report) return false;
      const author = findEntry(db(), report.pid)?.uid ?? 0;
      const logId = writeModlog(db(), administrator, { action: 'dismiss', pid: report.pid, uid: author }, now);
      return closeReport(db(), id, logId, now);
    });
    if (!closed) throw new CommandFailure(`no open report #${id}`);
    print(`closed report #${id}`);
    return 0;
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

export const modlog: Command = {
  name: 'modlog',
  summary: 'the moderation log with who did what, newest first',
  usage: '[page]',
  help: `
Prints the whole moderation log, ${modlogPageSize} rows a page (page 0, the newest, by default; at most
${maxModlogPage}): id, time (UTC), action, the entry or account, a ban's end, who did it (a moderator's
name, or "admin" for this command line) and the reason. Unlike the public /modlog it names the
moderators and shows the role changes (mod_add, mod_remove).`,
  needsBoard: true,
  args: [0, 1],
  validate([page]) {
    if (page !== undefined) wholeNumber(page, 'the page', maxModlogPage);
  },
  run({ args: [raw], db, print }) {
    const page = raw === undefined ? 0 : Number(raw);
    const rows = readAdminModlog(db(), page);
    if (rows.length === 0) print(page ? `nothing on page ${page}` : 'no moderation actions yet');
    for (const row of rows) print(describe(row));
    return 0;
  },
};
