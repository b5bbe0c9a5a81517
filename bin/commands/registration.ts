import { randomBytes } from 'node:crypto';
import { createResetLink } from '../../lib/accounts/reset-links.ts';
import { isNameTaken, isValidUsername } from '../../lib/accounts/users.ts';
import { createAdmittedAccount } from '../../lib/registration/admission.ts';
import { systemClock } from '../../lib/clock.ts';
import { registrationModes, type RegistrationMode } from '../../lib/config.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { moderationReason } from '../../lib/modlog/reasons.ts';
import { maxAdminInviteDays, maxApplicationsPage } from '../../lib/product.ts';
import {
  approveApplication,
  pendingStatus,
  readApplications,
  rejectApplication,
  rejectApplicationsBetween,
} from '../../lib/registration/applications.ts';
import { createInvite } from '../../lib/registration/invites.ts';
import { registrationInForce, setRegistrationMode } from '../../lib/registration/mode.ts';
import { CommandFailure, UsageError, type CommandBody, type CommandContext } from '../cli.ts';
import { accountNamed } from './accounts.ts';
import { pointInTime, utcMinute, wholeNumber } from './args.ts';
import { normaliseUsername } from '../../lib/text/usernames.ts';

/** The door at the command line (docs/API.md "Registration"): applications, invites, accounts by hand, the mode. */

export const applicationsCommand: CommandBody = {
  help: `
Lists the accounts waiting for approval: name, time (UTC), how many registrations came in the
same minute, and the answer to the registration question. "no applications" when none wait.
Decide with "board-admin approve <username>" or "board-admin reject <username> [--reason TEXT]".`,
  needsBoard: true,
  args: [0, 0],
  run({ db, print }) {
    let shown = 0;
    for (let page = 0; page <= maxApplicationsPage; page++) {
      const rows = readApplications(db(), page);
      for (const row of rows) {
        print(`${row.username}  ${utcMinute(row.created_at)}  (${row.same_minute} in that minute)`);
        print(`  ${row.application.replace(/\n/g, '\n  ')}`);
        shown++;
      }
      if (rows.length === 0) break;
    }
    if (shown === 0) print('no applications');
    return 0;
  },
};

/** The pending account named on the command line, or exit 1. */
function pendingNamed(ctx: CommandContext) {
  const user = accountNamed(ctx.db(), ctx.args[0]!);
  const status = ctx.db().one<{ status: string }>('SELECT status FROM users WHERE uid = ?', user.uid)?.status;
  if (status !== pendingStatus) throw new CommandFailure(`${user.username} has no application waiting`);
  return user;
}

export const approveCommand: CommandBody = {
  help: `
Approves the waiting application of <username>: from now on the account logs in like any other.
Logged in the public /modlog (without the application). Exit 1 when no application waits.`,
  needsBoard: true,
  args: [1, 1],
  run(ctx) {
    const user = pendingNamed(ctx);
    if (!approveApplication(ctx.db(), user.uid, administrator, systemClock.now()))
      throw new CommandFailure(`${user.username} has no application waiting`);
    ctx.print(`${user.username} is approved`);
    return 0;
  },
};

export const rejectCommand: CommandBody = {
  help: `
Rejects the waiting application of <username>. Its owner sees --reason (at most 500 characters)
when logging in, for 30 days; then the account is deleted and the name is free again. The public
/modlog names the account but not the reason. Exit 1 when no application waits.`,
  needsBoard: true,
  options: { reason: { type: 'string' } },
  args: [1, 1],
  validate(_args, options) {
    rejectReason(options);
  },
  run(ctx) {
    const user = pendingNamed(ctx);
    if (!rejectApplication(ctx.db(), user.uid, rejectReason(ctx.options), administrator, systemClock.now()))
      throw new CommandFailure(`${user.username} has no application waiting`);
    ctx.print(`${user.username} is rejected`);
    return 0;
  },
};

export const rejectBetweenCommand: CommandBody = {
  help: `
Rejects every waiting application registered from <from> to <to> (both included, to the second),
at most 1000, in one step, as POST /api/mod/applications/reject does: a wave of bot applications
fills the queue faster than anyone decides one by one. Times as "applications" prints them
(2026-11-21 06:30, UTC; 2026-11-21 06:30:59 for the end of that minute), a date, or a time ago
(90m, 2h; 0m is now). Each applicant sees --reason at login for 30 days; the public /modlog names
each account. Prints how many were rejected; exit 0 also when none were.`,
  needsBoard: true,
  options: { reason: { type: 'string' } },
  args: [2, 2],
  validate(args, options) {
    const now = systemClock.now();
    if (pointInTime(args[1]!, '<to>', now) < pointInTime(args[0]!, '<from>', now))
      throw new UsageError('<to> must not be before <from>');
    rejectReason(options);
  },
  run(ctx) {
    const now = systemClock.now();
    const from = pointInTime(ctx.args[0]!, '<from>', now);
    const to = pointInTime(ctx.args[1]!, '<to>', now);
    const names = rejectApplicationsBetween(ctx.db(), from, to, rejectReason(ctx.options), administrator, now);
    ctx.print(
      `${names.length} application${names.length === 1 ? '' : 's'} rejected${names.length ? `: ${names.join(', ')}` : ''}`,
    );
    return 0;
  },
};

function rejectReason(options: CommandContext['options']): string {
  const reason = moderationReason(typeof options.reason === 'string' ? options.reason : '');
  if (reason.error === 'long') throw new UsageError('the reason may have at most 500 characters');
  return reason.text;
}

export const inviteCommand: CommandBody = {
  help: `
Prints <BOARD_ORIGIN>/register#<token>: an invite that lets one person register in invite mode
and skips approval in approval mode. Valid 7 days, or --days N (1–${maxAdminInviteDays}); single use.
Invites made here have no inviter and no limit.`,
  needsBoard: true,
  options: { days: { type: 'string' } },
  args: [0, 0],
  validate(_args, options) {
    inviteDays(options);
  },
  run({ config, options, db, print }) {
    const invite = createInvite(db(), administrator, inviteDays(options) * 86_400, systemClock.now());
    print(`${config.origin}/register#${invite.token}`);
    return 0;
  },
};

function inviteDays(options: CommandContext['options']): number {
  if (typeof options.days !== 'string') return 7;
  const days = wholeNumber(options.days, '--days', maxAdminInviteDays);
  if (days < 1) throw new UsageError('--days must be at least 1');
  return days;
}

export const userAddCommand: CommandBody = {
  help: `
Creates the account <username> in any registration mode (a closed board still grows by hand)
and prints <BOARD_ORIGIN>/reset#<token>: the one-time link (72 hours) with which its owner sets
the password. The account starts trusted. Exit 1 when the name, or one that looks like it, is taken.`,
  needsBoard: true,
  args: [1, 1],
  validate([name]) {
    if (!isValidUsername(normaliseUsername(name!)))
      throw new UsageError('a username has 3–32 letters, digits, ".", "_", spaces and "-"');
  },
  run({ config, args: [name], db, print }) {
    const username = normaliseUsername(name!);
    if (isNameTaken(db(), username)) throw new CommandFailure(`the name "${username}" is taken`);
    // No password until the owner sets one with the link: a stored value no password verifies
    // against (lib/accounts/passwords.ts refuses a malformed hash). Names are public anyway, so a
    // login that fails faster for such an account tells nobody anything new.
    const hash = `!user-add ${randomBytes(16).toString('hex')}`;
    const account = createAdmittedAccount({ db: db(), config, clock: systemClock }, username, hash, 'operator');
    if (account === undefined) throw new CommandFailure(`the name "${username}" is taken`);
    print(`${config.origin}/reset#${createResetLink(db(), account.uid, systemClock.now())}`);
    return 0;
  },
};

export const registrationCommand: CommandBody = {
  help: `
Without an argument: prints the mode in force and who set it (config, moderator, operator: this
command line, surge). With a mode: sets it, as a moderator does on /mod; it stays until changed. Setting the mode of
BOARD_REGISTRATION hands the door back to the setting (and the surge gate). Logged in /modlog.`,
  needsBoard: true,
  args: [0, 1],
  validate([mode]) {
    if (mode !== undefined && !(registrationModes as readonly string[]).includes(mode))
      throw new UsageError(`the mode must be one of ${registrationModes.join(', ')}`);
  },
  run({ config, args: [mode], db, print }) {
    if (mode)
      setRegistrationMode(
        db(),
        config,
        { mode: mode as RegistrationMode, setBy: 'operator' },
        administrator,
        systemClock.now(),
      );
    const state = registrationInForce(db(), config);
    print(`${state.mode} (set by ${state.setBy}${state.since ? ` at ${utcMinute(state.since)} UTC` : ''})`);
    return 0;
  },
};
