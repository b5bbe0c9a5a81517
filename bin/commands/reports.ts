import { systemClock } from '../../lib/clock.ts';
import { closeReport, listOpenReports } from '../../lib/reports.ts';
import { CommandFailure, UsageError, type Command } from '../cli.ts';

export const reports: Command = {
  name: 'reports',
  summary: 'list open reports (id, entry, excerpt, reason, reporter)',
  usage: '',
  help: `
Lists the open reports, oldest first: the report's id (for report-close), the entry, how many
reports are open on that entry, the time (UTC), the reporter, an excerpt of the entry's text
and the reason. Prints "no open reports" when there are none.`,
  needsBoard: true,
  args: [0, 0],
  run({ db, print }) {
    const open = listOpenReports(db());
    if (open.length === 0) print('no open reports');
    for (const r of open) {
      const when = new Date(r.created_at * 1000).toISOString().slice(0, 16).replace('T', ' ');
      const reporter = r.reporter_uid ? `user ${r.reporter_uid}` : 'anonymous';
      print(`#${r.id}  entry ${r.pid} (${r.reports_on_entry} open)  ${when}  ${reporter}`);
      print(`    text:   ${JSON.stringify(r.excerpt)}`);
      if (r.reason) print(`    reason: ${JSON.stringify(r.reason)}`);
    }
    return 0;
  },
};

export const reportClose: Command = {
  name: 'report-close',
  summary: 'close one open report',
  usage: '<id>',
  help: `
Closes the open report with this id (see "board-admin reports"). The reporter may report the
entry again afterwards. Exit 1 when no open report has that id.`,
  needsBoard: true,
  args: [1, 1],
  validate([raw]) {
    if (!/^\d+$/.test(raw!)) throw new UsageError(`"${raw}" is not a report id`);
  },
  run({ args: [raw], db, print }) {
    if (!closeReport(db(), Number(raw), systemClock.now())) throw new CommandFailure(`no open report #${raw}`);
    print(`closed report #${raw}`);
    return 0;
  },
};
