import { systemClock } from '../../lib/clock.ts';
import { collectOrphanMedia, gcMinAgeSeconds } from '../../lib/admin/gc-media.ts';
import { backfillPreviews } from '../../lib/admin/previews.ts';
import { torBulkExitListUrl, torRefresh } from '../../lib/admin/tor-refresh.ts';
import { CommandFailure, type CommandBody } from '../cli.ts';

export const gcMedia: CommandBody = {
  help: `
Removes files under BOARD_DATA/media that no entry, avatar or link preview refers to: left
behind by a crash between writing a file and saving its row, or after a restore of an older
backup. Files younger than an hour are always kept (a request may still be saving its row), so
it is safe while the server runs. Prints each removed path and a count.`,
  needsBoard: true,
  args: [0, 0],
  async run({ config, db, print }) {
    const { removed, kept } = await collectOrphanMedia(config, db());
    for (const path of removed) print(`removed ${path}`);
    print(
      `removed ${removed.length} unreferenced files, kept ${kept} (files younger than ${gcMinAgeSeconds / 60} minutes are always kept)`,
    );
    return 0;
  },
};

export const previews: CommandBody = {
  help: `
Queues the links of existing entries whose preview record is missing or older than 30 days
(--all: every entry with a link) and fetches them in this process, two at a time, with the
server's guarded client and settings. Progress lines ("12/40 done") go to stderr. Exit 1 when
link previews are turned off (BOARD_PREVIEW=0).`,
  needsBoard: true,
  options: { all: { type: 'boolean' } },
  args: [0, 0],
  async run({ config, options, db, print, note, warn }) {
    if (!config.previewEnabled) throw new CommandFailure('link previews are turned off (BOARD_PREVIEW=0)');
    const result = await backfillPreviews(config, db(), {
      all: options.all === true,
      clock: systemClock,
      log: warn,
      progress: ({ done, total }) => note(`${done}/${total} done`),
    });
    print(`queued ${result.queued} links; ${result.done} fetched: ${result.saved} stored, ${result.failed} failed`);
    return 0;
  },
};

export const torRefreshCommand: CommandBody = {
  help: `
Downloads the Tor exit list (default ${torBulkExitListUrl})
and replaces BOARD_TOR_EXITS (default BOARD_DATA/tor-exits.txt) atomically; the server notices
the new file within seconds. It refuses, and leaves the old file alone, an answer that is not
200, takes longer than 30 s, is larger than 5 MiB, is empty, or has a line that is not an
address. Needs no board: it can run before the first start.`,
  needsBoard: false,
  args: [0, 1],
  async run({ config, args: [url], print }) {
    try {
      const count = await torRefresh(config, url);
      print(`wrote ${count} addresses to ${config.torExitsFile}`);
      return 0;
    } catch (err) {
      throw new CommandFailure(`${(err as Error).message} (${config.torExitsFile} left unchanged)`);
    }
  },
};
