import { backupDatabase } from '../../lib/admin/backup.ts';
import { restoreDatabase } from '../../lib/admin/restore.ts';
import type { Command } from '../cli.ts';

export const backup: Command = {
  name: 'backup',
  summary: 'consistent copy of the live database (safe while the server runs)',
  usage: '[--force] <file>',
  help: `
Copies the live database through SQLite's online backup API: safe while the server runs and
writes; the copy holds every write committed before the command started. The copy is one
self-contained file (no WAL: opening it creates no side files), passes SQLite's integrity check
before it gets its name, and nothing else is left behind: the copy is written under a temporary
name in the target folder, removed on any failure, Ctrl-C or SIGTERM; temporary files of a run
that was killed outright (SIGKILL, power cut) are removed by the next run.

An existing file is never replaced unless --force is given. Copy BOARD_DATA/media too (rsync).`,
  needsBoard: true,
  options: { force: { type: 'boolean' } },
  args: [1, 1],
  async run({ config, args: [file], options, print, note }) {
    const { pages, destination } = await backupDatabase(config, file!, { force: options.force === true, note });
    print(`backed up ${config.dbPath} to ${destination} (${pages} pages); copy ${config.mediaDir} with rsync too`);
    return 0;
  },
};

export const restore: Command = {
  name: 'restore',
  summary: 'put a backup back (refuses while a server uses BOARD_DATA)',
  usage: '<file>',
  help: `
Puts a backup back into BOARD_DATA: refuses while a server uses the folder, checks the file,
keeps the replaced database as board.db.before-restore-<time> and moves the backup into place.`,
  needsBoard: false,
  args: [1, 1],
  run({ config, args: [file], print }) {
    const { keptAs } = restoreDatabase(config, file!);
    print(`restored ${file} to ${config.dbPath}${keptAs ? `; the replaced database is kept as ${keptAs}` : ''}`);
    return 0;
  },
};
