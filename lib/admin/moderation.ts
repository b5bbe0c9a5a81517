import { systemClock } from '../clock.ts';
import { removeMedia } from '../media.ts';
import {
  activeBanUntil, banUser, listModerators, maxBanDays, permanentBan, removeAvatarOf, setModerator, unbanUser,
} from '../moderation/accounts.ts';
import { removeEntry, restoreEntry } from '../moderation/entries.ts';
import { moderationReason } from '../moderation/reasons.ts';
import { administrator } from '../modlog.ts';
import { findUserByName, moderatorRole } from '../users.ts';
import { ArgumentError, commandArgs, failed, utcMinute, wholeNumber, withBoard, type AdminCommand } from './cli.ts';

/**
 * The administrator's moderation commands (README "Moderating the board"): the same actions as
 * the moderators' API, logged with "admin" as the actor, plus the moderator role itself.
 */

/** --reason: required, cleaned and limited like the API's field. */
function reasonOption(raw: string | undefined): string {
  const reason = moderationReason(raw ?? '');
  if (reason.error === 'empty') throw new ArgumentError('needs --reason TEXT');
  if (reason.error === 'long') throw new ArgumentError('the reason may have at most 500 characters');
  return reason.text;
}

function noUser(name: string): number {
  return failed(`no user named "${name}"`);
}

const mod: AdminCommand = {
  usage: 'mod add <username> | mod remove <username> | mod list',
  run(args, open) {
    const [verb, ...rest] = args;
    if (verb === 'list') {
      commandArgs(rest, 0, {});
      return withBoard(open, ({ db }) => {
        const moderators = listModerators(db);
        if (moderators.length === 0) console.log('no moderators');
        for (const m of moderators) console.log(m.username);
        return 0;
      });
    }
    if (verb !== 'add' && verb !== 'remove') throw new ArgumentError('needs add, remove or list');
    const [name] = commandArgs(rest, 1, {}).words as [string];
    return withBoard(open, ({ db }) => {
      const user = findUserByName(db, name);
      if (!user) return noUser(name);
      const now = systemClock.now();
      if (verb === 'add' && activeBanUntil(user, now)) return failed(`${user.username} is banned; unban first`);
      if (!setModerator(db, user.uid, verb === 'add', now)) {
        return failed(`${user.username} ${verb === 'add' ? 'is a moderator already' : 'is not a moderator'}`);
      }
      console.log(verb === 'add' ? `${user.username} is now a moderator` : `${user.username} is no longer a moderator`);
      return 0;
    });
  },
};

const remove: AdminCommand = {
  usage: 'remove <pid> --reason TEXT',
  run(args, open) {
    const { words, options } = commandArgs(args, 1, { reason: { type: 'string' } });
    const pid = wholeNumber(words[0]!, 'pid');
    const reason = reasonOption(options.reason);
    return withBoard(open, ({ config, db }) => {
      if (!removeEntry(db, pid, reason, administrator, systemClock.now())) return failed(`no live entry ${pid} (unknown, deleted or removed already)`);
      console.log(`removed entry ${pid} (${config.origin}/e/${pid})`);
      return 0;
    });
  },
};

const restoreEntryCommand: AdminCommand = {
  usage: 'restore-entry <pid>',
  run(args, open) {
    const pid = wholeNumber(commandArgs(args, 1, {}).words[0]!, 'pid');
    return withBoard(open, ({ db }) => {
      const outcome = restoreEntry(db, pid, administrator, systemClock.now());
      if (outcome === 'not_found') return failed(`no entry ${pid} to restore (unknown, or its author deleted the account)`);
      if (outcome === 'not_removed') return failed(`entry ${pid} is not removed`);
      console.log(`restored entry ${pid}`);
      return 0;
    });
  },
};

const ban: AdminCommand = {
  usage: 'ban <username> --reason TEXT [--days N] [--purge]',
  run(args, open) {
    const { words, options } = commandArgs(args, 1, { reason: { type: 'string' }, days: { type: 'string' }, purge: { type: 'boolean' } });
    const reason = reasonOption(options.reason);
    const days = options.days === undefined ? undefined : wholeNumber(options.days, '--days', maxBanDays);
    if (days === 0) throw new ArgumentError(`--days must be 1 to ${maxBanDays}; leave it out for a permanent ban`);
    return withBoard(open, ({ db }) => {
      const user = findUserByName(db, words[0]!);
      if (!user) return noUser(words[0]!);
      const now = systemClock.now();
      const until = days === undefined ? permanentBan : now + days * 86_400;
      const purged = banUser(db, user.uid, { reason, until, purge: options.purge === true }, administrator, now);
      const end = until === permanentBan ? 'permanently' : `until ${utcMinute(until)} UTC`;
      const extras = [
        user.role === moderatorRole ? `${user.username} is no longer a moderator` : '',
        options.purge ? `removed ${purged} entries` : '',
      ].filter(Boolean);
      console.log(`banned ${user.username} ${end}${extras.map((e) => `; ${e}`).join('')}`);
      return 0;
    });
  },
};

const unban: AdminCommand = {
  usage: 'unban <username>',
  run(args, open) {
    const [name] = commandArgs(args, 1, {}).words as [string];
    return withBoard(open, ({ db }) => {
      const user = findUserByName(db, name);
      if (!user) return noUser(name);
      if (!unbanUser(db, user.uid, administrator, systemClock.now())) return failed(`${user.username} is not banned`);
      console.log(`lifted the ban of ${user.username}`);
      return 0;
    });
  },
};

const avatarRemove: AdminCommand = {
  usage: 'avatar-remove <username> --reason TEXT',
  run(args, open) {
    const { words, options } = commandArgs(args, 1, { reason: { type: 'string' } });
    const reason = reasonOption(options.reason);
    return withBoard(open, async ({ config, db }) => {
      const user = findUserByName(db, words[0]!);
      if (!user) return noUser(words[0]!);
      const old = removeAvatarOf(db, user.uid, reason, administrator, systemClock.now());
      if (!old) return failed(`${user.username} has no avatar`);
      await removeMedia(config, [old]);
      console.log(`removed the avatar of ${user.username}`);
      return 0;
    });
  },
};

export const moderationCommands: Record<string, AdminCommand> = {
  mod,
  remove,
  'restore-entry': restoreEntryCommand,
  ban,
  unban,
  'avatar-remove': avatarRemove,
};
