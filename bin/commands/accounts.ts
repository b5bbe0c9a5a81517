import { systemClock } from '../../lib/clock.ts';
import type { Db } from '../../lib/db/db.ts';
import { listModerators, setModerator } from '../../lib/moderation/accounts.ts';
import { activeBanUntil } from '../../lib/accounts/bans.ts';
import { createResetLink } from '../../lib/accounts/reset-links.ts';
import { findUserByName, remoteStatus, type User } from '../../lib/accounts/users.ts';
import { CommandFailure, UsageError, type CommandBody } from '../cli.ts';

/** The account named on the command line (looked up like a login), or exit 1 naming the name. */
export function accountNamed(db: Db, name: string): User {
  const user = findUserByName(db, name);
  if (!user) throw new CommandFailure(`no user named "${name}"`);
  return user;
}

/**
 * accountNamed, refusing an author from another server: it has no password to reset and cannot
 * log in, so neither a reset link nor the moderator role means anything for it.
 */
function memberNamed(db: Db, name: string): User {
  const user = accountNamed(db, name);
  if (user.status === remoteStatus) throw new CommandFailure(`${user.username} is an author on another server`);
  return user;
}

export const resetLink: CommandBody = {
  help: `
Prints <BOARD_ORIGIN>/reset#<token>: a one-time link that sets a new password, valid 72 hours.
A new link makes the user's older ones invalid. The name is looked up like a login (any letter
case, extra spaces ignored). Send the link by another channel; the token sits in the URL
fragment, so it never reaches a server log. Exit 1 when there is no such user, or the name is an
author on another server (@name@host), which has no password.`,
  needsBoard: true,
  args: [1, 1],
  run({ config, args: [username], db, print }) {
    const user = memberNamed(db(), username!);
    print(`${config.origin}/reset#${createResetLink(db(), user.uid, systemClock.now())}`);
    return 0;
  },
};

export const mod: CommandBody = {
  help: `
mod add <username>      makes the account a moderator: at once, it sees the Moderation link and
                        the report queue at /mod (a banned account cannot be one; unban first)
mod remove <username>   ends the role at once
mod list                prints the moderators' names, one a line ("no moderators" when none)

Role changes are logged for the administrator ("board-admin modlog"), never in the public
/modlog. Exit 1 when there is no such user or the role is already so.`,
  needsBoard: true,
  args: [0, 2],
  validate([verb, ...rest]) {
    if (verb === 'list') {
      if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
      return;
    }
    if (verb !== 'add' && verb !== 'remove') throw new UsageError('needs add, remove or list');
    if (rest.length === 0) throw new UsageError('missing <username>');
  },
  run({ args: [verb, name], db, print }) {
    if (verb === 'list') {
      const moderators = listModerators(db());
      if (moderators.length === 0) print('no moderators');
      for (const m of moderators) print(m.username);
      return 0;
    }
    const user = memberNamed(db(), name!);
    const now = systemClock.now();
    // A banned account cannot act, so it cannot hold the role either.
    if (verb === 'add' && activeBanUntil(user, now))
      throw new CommandFailure(`${user.username} is banned; unban first`);
    if (!setModerator(db(), user.uid, verb === 'add', now)) {
      throw new CommandFailure(`${user.username} ${verb === 'add' ? 'is a moderator already' : 'is not a moderator'}`);
    }
    print(verb === 'add' ? `${user.username} is now a moderator` : `${user.username} is no longer a moderator`);
    return 0;
  },
};
