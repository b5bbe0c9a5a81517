import { accountStanding } from '../accounts/standing.ts';
import type { Db } from '../db/db.ts';
import { judgeEntryContent } from '../entries/content-gate.ts';
import { editEntry, findLiveEntry, softDeleteEntry } from '../entries/entries.ts';
import type { EntryRow } from '../entries/reads.ts';
import { ApiError } from '../errors.ts';
import { removeMedia } from '../media/files.ts';
import type { RemoteDeps } from './remote-entries.ts';
import { remoteWriterAdmitted } from './remote-standing.ts';
import { remoteText } from './remote-text.ts';

/**
 * An `Update` or `Delete` of a remote entry (docs/API.md "Remote entries"): only its author's own,
 * through the same gate and the same writes as a member's edit and deletion. Anyone else's is
 * ignored, so one server cannot rewrite or erase what another's people wrote.
 */

export type Outcome = { pid: number } | { dropped: string };

function authorsEntry(
  db: Db,
  actorId: string,
  objectId: string,
): { entry: EntryRow; url: string } | { dropped: string } {
  const kept = db.one<{ pid: number; actor_id: string; url: string }>(
    'SELECT pid, actor_id, url FROM remote_entries WHERE object_id = ?',
    objectId,
  );
  if (!kept) return { dropped: 'unknown' };
  if (kept.actor_id !== actorId) return { dropped: 'not the author' };
  const entry = findLiveEntry(db, kept.pid);
  return entry ? { entry, url: kept.url } : { dropped: 'deleted' };
}

/**
 * Edits the author's remote entry to the post's new text, judged as a member's edit is (the
 * length, level 0's caps, the same text twice); the ban is re-checked in the write.
 */
export function editRemoteEntry(
  deps: RemoteDeps,
  actorId: string,
  post: { objectId: string; html: string; title?: string },
  now: number,
): Outcome {
  const { db, config } = deps;
  const found = authorsEntry(db, actorId, post.objectId);
  if ('dropped' in found) return found;
  const { entry, url } = found;
  const { text } = remoteText(post.html, url, new URL(config.origin).host, post.title);
  try {
    const standing = accountStanding(db, entry.uid, config, now);
    const draft = { content: text, image: entry.filepath !== '' };
    const judged = judgeEntryContent(deps, { uid: entry.uid, standing }, draft, now, entry);
    return db.tx(() => {
      if (!remoteWriterAdmitted(db, config, actorId, now)) return { dropped: 'banned or blocked' };
      judged.checkInWrite(db);
      editEntry(db, entry.pid, judged.content, judged.link, now);
      return { pid: entry.pid };
    });
  } catch (err) {
    if (err instanceof ApiError) return { dropped: err.code };
    throw err;
  }
}

/** Deletes the author's remote entry as a member's own deletion does (soft: it keeps its place). */
export async function deleteRemoteEntry(
  deps: RemoteDeps & { log: (line: string) => void },
  actorId: string,
  objectId: string,
  now: number,
): Promise<Outcome> {
  const { db } = deps;
  const deleted = db.tx((): { pid: number; filepath: string } | { dropped: string } => {
    const found = authorsEntry(db, actorId, objectId);
    if ('dropped' in found) return found;
    if (!remoteWriterAdmitted(db, deps.config, actorId, now)) return { dropped: 'banned or blocked' };
    return { pid: found.entry.pid, filepath: softDeleteEntry(db, found.entry.pid, now) };
  });
  if ('dropped' in deleted) return deleted;
  await removeMedia(deps.config, [deleted.filepath], deps.log);
  return { pid: deleted.pid };
}
