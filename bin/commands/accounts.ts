import { systemClock } from '../../lib/clock.ts';
import { createResetLink } from '../../lib/reset-links.ts';
import { findUserByName } from '../../lib/users.ts';
import { CommandFailure, type Command } from '../cli.ts';

export const resetLink: Command = {
  name: 'reset-link',
  summary: 'print a one-time password reset link (72 hours)',
  usage: '<username>',
  help: `
Prints <BOARD_ORIGIN>/reset#<token>: a one-time link that sets a new password, valid 72 hours.
A new link makes the user's older ones invalid. The name is looked up like a login (any letter
case, extra spaces ignored). Send the link by another channel; the token sits in the URL
fragment, so it never reaches a server log. Exit 1 when there is no such user.`,
  needsBoard: true,
  args: [1, 1],
  run({ config, args: [username], db, print }) {
    const user = findUserByName(db(), username!);
    if (!user) throw new CommandFailure(`no user named "${username}"`);
    print(`${config.origin}/reset#${createResetLink(db(), user.uid, systemClock.now())}`);
    return 0;
  },
};
