import type { Command } from '../cli.ts';
import { resetLink } from './accounts.ts';
import { backup, restore, verify } from './backups.ts';
import { gcMedia, previews, torRefreshCommand } from './maintenance.ts';
import { reportClose, reports } from './reports.ts';

/**
 * THE command table of bin/board-admin, in the order `board-admin help` lists them. Adding a
 * command is one entry here (a Command from bin/cli.ts, its code in a file beside this one).
 */
export const commands: readonly Command[] = [
  resetLink,
  reports,
  reportClose,
  backup,
  restore,
  verify,
  gcMedia,
  previews,
  torRefreshCommand,
];
