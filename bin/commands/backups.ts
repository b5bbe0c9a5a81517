import { backupDatabase, restoreDatabase } from '../../lib/admin/backup.ts';
import type { Command } from '../cli.ts';

export const backup: Command = {
  name: 'backup',
  summary: 'consistent copy of the live database (safe while the server runs)',
  usage: '<file>',
  help: `
Copies the live database through SQLite's online backup API: safe while the server runs and
writes. Copy BOARD_DATA/media with rsync too.`,
  needsBoard: true,
  args: [1, 1],
  async run({ config, args: [file], print }) {
    const { pages } = await backupDatabase(config, file!);
    print(`backed up ${config.dbPath} to ${file} (${pages} pages); copy ${config.mediaDir} with rsync too`);
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
