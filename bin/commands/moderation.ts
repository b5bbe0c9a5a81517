import { systemClock } from '../../lib/clock.ts';
import { removeMedia } from '../../lib/media/files.ts';
import { maxBanDays, maxModReasonLength } from '../../lib/product.ts';
import { banUser, removeAvatarOf, unbanUser } from '../../lib/moderation/accounts.ts';
import { permanentBan } from '../../lib/accounts/bans.ts';
import { removeEntry, restoreEntry } from '../../lib/moderation/entries.ts';
import { administrator } from '../../lib/modlog/modlog.ts';
import { moderatorRole } from '../../lib/accounts/users.ts';
import { CommandFailure, UsageError, type CommandBody, type CommandContext } from '../cli.ts';
import { accountNamed } from './accounts.ts';
import { reasonOption, utcMinute, wholeNumber } from './args.ts';

/**
 * The administrator's moderation commands (docs/OPERATIONS.md "Moderating the board"): the same actions as
 * the moderators' API, logged with "admin" as the actor. The role itself: `mod` in accounts.ts.
 */

const reasonHelp = `The reason is required (1-${maxModReasonLength} characters, one line) and public: the board shows it
and so does /modlog, which never names who acted ("board-admin modlog" shows "admin").`;

export const remove: CommandBody = {
  help: `
Removes the entry with this pid, as a moderator's Entfernen does: it disappears from the feed,
its thread and the counters at once, its open reports are closed, and the log gets a "remove"
row. Text, image and link stay stored, so "board-admin restore-entry <pid>" brings it back.
${reasonHelp}
Exit 1 when the entry is unknown, deleted or removed already.`,
  needsBoard: true,
  options: { reason: { type: 'string' } },
  args: [1, 1],
  validate([pid], options) {
    wholeNumber(pid!, 'pid');
    reasonOption(options);
  },
  run({ config, args: [raw], options, db, print }) {
    const pid = Number(raw);
    if (!removeEntry(db(), pid, reasonOption(options), administrator, systemClock.now())) {
      throw new CommandFailure(`no live entry ${pid} (unknown, deleted or removed already)`);
    }
    print(`removed entry ${pid} (${config.origin}/e/${pid})`);
    return 0;
  },
};

export const restoreEntryCommand: CommandBody = {
  help: `
Gives a removed entry back exactly as it was (text, image, link), counted again and in the feed
again; the log gets a "restore" row. Exit 1 when the entry is not removed, or when its author
deleted the account (then nothing is left to restore).`,
  needsBoard: true,
  args: [1, 1],
  validate([pid]) {
    wholeNumber(pid!, 'pid');
  },
  run({ args: [raw], db, print }) {
    const pid = Number(raw);
    const outcome = restoreEntry(db(), pid, administrator, systemClock.now());
    if (outcome === 'not_found')
      throw new CommandFailure(`no entry ${pid} to restore (unknown, or its author deleted the account)`);
    if (outcome === 'not_removed') throw new CommandFailure(`entry ${pid} is not removed`);
    print(`restored entry ${pid}`);
    return 0;
  },
};

/** --days: 1 to maxBanDays, or undefined for a permanent ban. */
function banDays(options: CommandContext['options']): number | undefined {
  if (typeof options.days !== 'string') return undefined;
  const days = wholeNumber(options.days, '--days', maxBanDays);
  if (days === 0) throw new UsageError(`--days must be 1 to ${maxBanDays}; leave it out for a permanent ban`);
  return days;
}

export const ban: CommandBody = {
  help: `
Bans the account: every session ends at once; while the ban lasts its password answers "Dieses
Konto ist gesperrt bis ...", reset links do not work and the name stays taken. A moderator loses
the role. A second ban replaces the first one's end.

--days N   the ban ends N days from now (1-${maxBanDays}); without it the ban is permanent.
--purge    also remove every live entry of the account (each one logged, restorable).

${reasonHelp}
"board-admin unban <username>" lifts the ban. Exit 1 when there is no such user.`,
  needsBoard: true,
  options: { reason: { type: 'string' }, days: { type: 'string' }, purge: { type: 'boolean' } },
  args: [1, 1],
  validate(_args, options) {
    reasonOption(options);
    banDays(options);
  },
  run({ args: [name], options, db, print }) {
    const user = accountNamed(db(), name!);
    const now = systemClock.now();
    const days = banDays(options);
    const until = days === undefined ? permanentBan : now + days * 86_400;
    const purged = banUser(
      db(),
      user.uid,
      { reason: reasonOption(options), until, purge: options.purge === true },
      administrator,
      now,
    );
    const end = until === permanentBan ? 'permanently' : `until ${utcMinute(until)} UTC`;
    const extras = [
      user.role === moderatorRole ? `${user.username} is no longer a moderator` : '',
      options.purge ? `removed ${purged} entries` : '',
    ].filter(Boolean);
    print(`banned ${user.username} ${end}${extras.map((e) => `; ${e}`).join('')}`);
    return 0;
  },
};

export const unban: CommandBody = {
  help: `
Lifts a ban in force at once; the account logs in again with its password. The log gets an
"unban" row. Exit 1 when there is no such user or it is not banned (never, or the ban ended).`,
  needsBoard: true,
  args: [1, 1],
  run({ args: [name], db, print }) {
    const user = accountNamed(db(), name!);
    if (!unbanUser(db(), user.uid, administrator, systemClock.now()))
      throw new CommandFailure(`${user.username} is not banned`);
    print(`lifted the ban of ${user.username}`);
    return 0;
  },
};

export const avatarRemove: CommandBody = {
  help: `
Takes the account's avatar down everywhere at once and deletes its file; the user may upload a
new one. ${reasonHelp}
Exit 1 when there is no such user or it has no avatar.`,
  needsBoard: true,
  options: { reason: { type: 'string' } },
  args: [1, 1],
  validate(_args, options) {
    reasonOption(options);
  },
  async run({ config, args: [name], options, db, print, warn }) {
    const user = accountNamed(db(), name!);
    const old = removeAvatarOf(db(), user.uid, reasonOption(options), administrator, systemClock.now());
    if (!old) throw new CommandFailure(`${user.username} has no avatar`);
    await removeMedia(config, [old], warn);
    print(`removed the avatar of ${user.username}`);
    return 0;
  },
};
