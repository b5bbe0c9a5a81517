import { maxArchiveMediaBytes } from '../../lib/admin/archive.ts';
import { backupDatabase, backupWithMedia } from '../../lib/admin/backup.ts';
import { restoreBackup } from '../../lib/admin/restore.ts';
import { verifyBackup, verifyDataFolder } from '../../lib/admin/verify.ts';
import { sizeText } from '../../lib/text/size-text.ts';
import { CommandFailure, UsageError, type CommandBody } from '../cli.ts';

export const backup: CommandBody = {
  help: `
Copies the live database through SQLite's online backup API: safe while the server runs and
writes; the copy holds every write committed before the command started. The copy is one
self-contained file readable only by its owner (no WAL: opening it creates no side files) and
passes SQLite's integrity check before it gets its name.

--with-media  writes one tar archive instead (tar -tf lists it): board.db, then every media
              file that copy refers to (entry images, avatars, preview thumbnails) under
              media/. While it runs, files the board removes are moved to
              BOARD_DATA/media/.held instead (a "media hold", BOARD_DATA/media/.hold/<pid>),
              so the archive still gets them; the folder is emptied at the end. A file
              missing for another reason, or one that is not an image the board writes
              (a restore would refuse it), is skipped with a note; progress lines go
              to stderr every 500 files and at least every 2 seconds. Without it, copy BOARD_DATA/media yourself (rsync).
--force       replace an existing file (never done without it).

Nothing else is left behind: the file is written under a temporary name in the target folder,
removed on any failure, Ctrl-C or SIGTERM; temporary files of a run killed outright (SIGKILL,
power cut) are removed by the next run in that folder.`,
  needsBoard: true,
  options: { force: { type: 'boolean' }, 'with-media': { type: 'boolean' } },
  args: [1, 1],
  async run({ config, args: [file], options, print, note }) {
    const settings = { force: options.force === true, note };
    if (options['with-media'] !== true) {
      const { pages, destination } = await backupDatabase(config, file!, settings);
      print(
        `backed up ${config.dbPath} to ${destination} (${pages} pages); copy ${config.mediaDir} with rsync too, or use --with-media`,
      );
      return 0;
    }
    const result = await backupWithMedia(config, file!, settings);
    const skipped = result.skipped.length ? `; ${result.skipped.length} files deleted meanwhile were left out` : '';
    const refused = result.refused.length
      ? `; ${result.refused.length} files that are not images the board writes were left out`
      : '';
    print(
      `backed up ${config.dbPath} (${result.pages} pages) and ${result.files} media files (${sizeText(result.bytes)}) to ${result.destination}${skipped}${refused}`,
    );
    return 0;
  },
};

export const restore: CommandBody = {
  help: `
Puts a backup back into BOARD_DATA (created if it does not exist): a database file from
"backup", or an archive from "backup --with-media" (told apart by their content). Refuses while
a server uses the folder. Everything is unpacked and checked first (integrity check, a board
database, a schema not newer than the code). An archive may hold only what a backup writes:
board.db first, then images named and made as the board makes them (e/, a/ or preview/, 32 hex
digits, .jpg/.png/.gif/.webp, their bytes that format, at most ${maxArchiveMediaBytes / 1048576} MiB), each named by a row of
that database, once, each fitting the free space; anything else refuses the whole archive with
one line naming the entry, and changes nothing. Then the archive's media files go into
BOARD_DATA/media (0600 in folders 0700; files already there stay), the current database is kept
as board.db.before-restore-<time>, and the backup takes its place.

Afterwards it counts the media files the restored database refers to but BOARD_DATA/media
lacks, and warns when there are any (after a database-only restore: bring them back with rsync).`,
  needsBoard: false,
  args: [1, 1],
  async run({ config, args: [file], print, note, warn }) {
    note(`board-admin: database ${config.dbPath}`);
    const result = await restoreBackup(config, file!);
    const media = result.kind === 'archive' ? ` and ${result.mediaRestored} media files into ${config.mediaDir}` : '';
    print(
      `restored ${file} to ${config.dbPath}${media}${result.keptAs ? `; the replaced database is kept as ${result.keptAs}` : ''}`,
    );
    if (result.missing.length) {
      warn(
        `board-admin: warning: ${result.missing.length} media files the restored database refers to are missing from ${config.mediaDir}; copy them back (rsync) or restore a backup made with --with-media`,
      );
    }
    return 0;
  },
};

export const verify: CommandBody = {
  help: `
Checks a backup: SQLite's integrity check, that it is a board database, its schema (not newer
than this code), and that every media file it refers to is there: inside the archive for a
--with-media backup; for a plain database file, in BOARD_DATA/media (or it reports what is
missing). An archive must hold nothing restore would refuse (see: board-admin help restore), or
the problem names the entry. Never opens the live database. Prints one summary line, "ok: ..." (exit 0) or
"problem: ..." (exit 1), for a cron job to alert on.

--data  checks the board in BOARD_DATA instead of a file: board.db (the same checks, read-only)
        and every media file it refers to in BOARD_DATA/media. After a restore from the replica
        (docs/OPERATIONS.md "Disaster recovery"), or any time: safe while the server runs.`,
  needsBoard: false,
  options: { data: { type: 'boolean' } },
  args: [0, 1],
  validate(args, options) {
    if (options.data === true && args.length) throw new UsageError('give a file or --data, not both');
    if (options.data !== true && !args.length) throw new UsageError('missing <file> (or --data)');
  },
  async run({ config, args: [file], options, print }) {
    const what = options.data === true ? config.dataDir : file!;
    const { problems, facts } = options.data === true ? verifyDataFolder(config) : await verifyBackup(config, file!);
    if (problems.length)
      throw new CommandFailure(
        `problem: ${what}: ${problems.join('; ')}${facts.length ? ` (${facts.join(', ')})` : ''}`,
      );
    print(`ok: ${what}: ${facts.join(', ')}`);
    return 0;
  },
};
