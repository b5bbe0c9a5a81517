import { systemClock } from '../../lib/clock.ts';
import type { Db } from '../../lib/db/db.ts';
import { findEntry } from '../../lib/entries/entries.ts';
import { maxModlogPage, modlogPageSize } from '../../lib/product.ts';
import {
  administrator,
  readAdminModlog,
  readModlogRange,
  writeModlog,
  type AdminModlogRow,
} from '../../lib/modlog/modlog.ts';
import { closeReport, findOpenReport, listOpenReports } from '../../lib/moderation/reports.ts';
import { instanceChange, registrationChange } from '../../web/static/modlog-words.js';
import { CommandFailure, UsageError, type CommandBody, type CommandContext } from '../cli.ts';
import { accountNamed } from './accounts.ts';
import { pointInTime, utcMinute, wholeNumber } from './args.ts';

/** The administrator's view of reports and of the whole moderation log, with the names the API leaves out. */

const reporterOf = (r: { reporter: string; instance: string }) =>
  r.reporter || (r.instance ? `from ${r.instance}` : 'anonymous');

export const reports: CommandBody = {
  help: `
Lists the open reports, grouped by entry: the report's id (for report-close), the entry, how many
reports are open on that entry, the time (UTC), the reporter's name (or "anonymous", or
"from INSTANCE" for a report another server sent), the
entry's address, an excerpt of its text (marked when the entry is deleted, removed or gone) and
the full reason. Prints "no open reports" when there are none.`,
  needsBoard: true,
  args: [0, 0],
  run({ config, db, print }) {
    const open = listOpenReports(db());
    if (open.length === 0) print('no open reports');
    for (const r of open) {
      print(`#${r.id}  entry ${r.pid} (${r.reports_on_entry} open)  ${utcMinute(r.created_at)}  ${reporterOf(r)}`);
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

export const reportClose: CommandBody = {
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

/**
 * `ban Anna until 2026-12-01 06:30 UTC`, `remove entry 12 (Anna)`, `registration set to approval`:
 * one line per log row. A registration change acts on no account: its line names the mode set (as
 * `board-admin registration` takes it) and, as its reason, only what switched it.
 */
function describe(row: AdminModlogRow): string {
  const change = row.action === 'registration' ? registrationChange(row.reason) : undefined;
  const instance = row.action.startsWith('instance_') ? instanceChange(row.reason) : undefined;
  const who = row.username || (row.pid ? '' : '(deleted account)');
  const target = instance
    ? instance.host
    : change
      ? `set to ${change.mode}`
      : row.pid
        ? `entry ${row.pid}${who ? ` (${who})` : ''}`
        : who;
  const until = row.action !== 'ban' ? '' : row.until === -1 ? ' permanently' : ` until ${utcMinute(row.until)} UTC`;
  const why = instance ? instance.note : change ? change.note : row.reason;
  const reason = why ? `  ${JSON.stringify(why)}` : '';
  return `#${row.id}  ${utcMinute(row.created_at)}  ${row.action} ${target}${until}  by ${row.moderator}${reason}`;
}

/** The command that undoes a row, for the actions that can be undone from here. */
function undoing(row: AdminModlogRow): string {
  if (row.action === 'remove') return `board-admin restore-entry ${row.pid}`;
  if (row.action === 'ban' && row.username) return `board-admin unban ${JSON.stringify(row.username)}`;
  return '';
}

/** --by, --since, --until: the range to list, or undefined for the paged log. */
function rangeOf(
  options: CommandContext['options'],
  now: number,
): { by?: string; since: number; until: number } | undefined {
  const { by, since, until } = options;
  if (by === undefined && since === undefined && until === undefined) return undefined;
  if (by !== undefined && (typeof by !== 'string' || by.trim() === ''))
    throw new UsageError("--by needs a moderator's name");
  const range = {
    by: by as string | undefined,
    since: typeof since === 'string' ? pointInTime(since, '--since', now) : 0,
    until: typeof until === 'string' ? pointInTime(until, '--until', now) : now + 1,
  };
  if (range.since >= range.until) throw new UsageError('--since must be before --until');
  return range;
}

export const modlog: CommandBody = {
  help: `
Prints the whole moderation log, ${modlogPageSize} rows a page (page 0, the newest, by default; at most
${maxModlogPage}): id, time (UTC), action, the entry or account, a ban's end, who did it (a moderator's
name, or "admin" for this command line) and the reason. Unlike the public /modlog it names the
moderators and shows the role changes (mod_add, mod_remove).

With --by, --since or --until it prints every action in that range instead, oldest first, each
removal and ban with the command that undoes it: what to run after a moderator account was
stolen or went rogue.

--by NAME      only the actions of this account (looked up like a login)
--since TIME   from this time on (included); default: the start of the log
--until TIME   up to this time (not included); default: now

TIME is a date (2026-11-21, its 00:00 UTC), a time (2026-11-21 06:30 or 2026-11-21T06:30:15,
in UTC like everything board-admin prints, or ending in Z or an offset such as +01:00), or a
time ago: 90m, 2h, 3d (minutes, hours, days). "--since 2026-11-21 --until 2026-11-22" is that
whole day. Exit 1 when there is no such user.`,
  needsBoard: true,
  options: { by: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' } },
  args: [0, 1],
  validate([page], options) {
    if (page !== undefined) wholeNumber(page, 'the page', maxModlogPage);
    if (rangeOf(options, systemClock.now()) && page !== undefined)
      throw new UsageError('a page or --by/--since/--until, not both');
  },
  run({ args: [raw], options, db, print }) {
    const range = rangeOf(options, systemClock.now());
    if (range) {
      const actor = range.by === undefined ? undefined : accountNamed(db(), range.by).uid;
      let count = 0;
      for (const row of readModlogRange(db(), { actor, since: range.since, until: range.until })) {
        const undo = undoing(row);
        print(undo ? `${describe(row)}  undo: ${undo}` : describe(row));
        count++;
      }
      if (count === 0) print('no moderation actions in that range');
      return 0;
    }
    const page = raw === undefined ? 0 : Number(raw);
    const rows = readAdminModlog(db(), page);
    if (rows.length === 0) print(page ? `nothing on page ${page}` : 'no moderation actions yet');
    for (const row of rows) print(describe(row));
    return 0;
  },
};
