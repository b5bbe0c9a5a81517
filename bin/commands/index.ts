import type { Command } from '../cli.ts';
import { mod, resetLink } from './accounts.ts';
import { backup, restore, verify } from './backups.ts';
import { federationCommand } from './federation.ts';
import { gcMedia, previews, torRefreshCommand } from './maintenance.ts';
import { avatarRemove, ban, remove, restoreEntryCommand, unban } from './moderation.ts';
import {
  applicationsCommand,
  approveCommand,
  inviteCommand,
  registrationCommand,
  rejectCommand,
  rejectBetweenCommand,
  userAddCommand,
} from './registration.ts';
import { modlog, reportClose, reports } from './reports.ts';

/**
 * THE command table of bin/board-admin, in the order `board-admin help` lists them. Adding a
 * command is one entry here (a Command from bin/cli.ts, its code in a file beside this one).
 */
export const commands: readonly Command[] = [
  resetLink,
  reports,
  reportClose,
  remove,
  restoreEntryCommand,
  ban,
  unban,
  avatarRemove,
  mod,
  userAddCommand,
  inviteCommand,
  applicationsCommand,
  approveCommand,
  rejectCommand,
  rejectBetweenCommand,
  registrationCommand,
  federationCommand,
  modlog,
  backup,
  restore,
  verify,
  gcMedia,
  previews,
  torRefreshCommand,
];
