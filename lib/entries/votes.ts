import type { Db } from '../db/db.ts';

export type VoteMode = 'yes' | 'no';

export interface Tally {
  pid: number;
  yes: number;
  no: number;
  selected: VoteMode | 'none';
}

/**
 * The vote state machine (docs/API.md "POST /api/entry/{pid}/vote"): a vote sets the mode, the same vote again withdraws it, the
 * other mode switches. The entry's counters and the statistics move in the same transaction.
 */
export function castVote(db: Db, pid: number, uid: number, mode: VoteMode, now: number): void {
  db.tx(() => {
    const previous = previousVote(db, pid, uid);
    moveVote(db, pid, uid, previous, previous && (previous.yes === 1) === (mode === 'yes') ? 'none' : mode, now);
  });
}

/**
 * Sets an account's vote on an entry to `mode`, or withdraws it (`none`), whatever it was: a vote
 * that says its mode outright (another server's Like or Dislike, and their Undo). Returns whether
 * anything changed. The same write as castVote, so the same rules and counts hold.
 */
export function setVote(db: Db, pid: number, uid: number, mode: VoteMode | 'none', now: number): boolean {
  return db.tx(() => moveVote(db, pid, uid, previousVote(db, pid, uid), mode, now));
}

export function voteOf(db: Db, pid: number, uid: number): VoteMode | undefined {
  const previous = previousVote(db, pid, uid);
  return previous && (previous.yes ? 'yes' : 'no');
}

interface StoredVote {
  yes: number;
  created_at: number;
}

const previousVote = (db: Db, pid: number, uid: number) =>
  db.one<StoredVote>('SELECT yes, created_at FROM votes WHERE pid = ? AND uid = ?', pid, uid);

/** The one write of a vote: from `previous` to `next`, the tallies, the statistics, the pages and the event. */
function moveVote(
  db: Db,
  pid: number,
  uid: number,
  previous: StoredVote | undefined,
  next: VoteMode | 'none',
  now: number,
): boolean {
  const yes = next === 'yes' ? 1 : 0;
  if (!previous && next === 'none') return false;
  if (previous && next !== 'none' && previous.yes === yes) return false;
  if (!previous) {
    db.run('INSERT INTO votes (pid, uid, yes, created_at) VALUES (?, ?, ?, ?)', pid, uid, yes, now);
    moveTally(db, pid, yes, +1);
  } else if (next === 'none') {
    db.run('DELETE FROM votes WHERE pid = ? AND uid = ?', pid, uid);
    moveTally(db, pid, previous.yes, -1);
  } else {
    db.run('UPDATE votes SET yes = ?, created_at = ? WHERE pid = ? AND uid = ?', yes, now, pid, uid);
    moveTally(db, pid, previous.yes, -1);
    moveTally(db, pid, yes, +1);
  }
  db.changes.votesChanged();
  const before = previous && { mode: previous.yes ? ('yes' as const) : ('no' as const), at: previous.created_at };
  db.events.voteChanged(pid, uid, before, next === 'none' ? undefined : { mode: next, at: now });
  return true;
}

function moveTally(db: Db, pid: number, yes: number, delta: number): void {
  const column = yes ? 'votes_yes' : 'votes_no';
  db.run(`UPDATE entries SET ${column} = ${column} + ? WHERE pid = ?`, delta, pid);
  db.run('UPDATE counters SET value = value + ? WHERE name = ?', delta, column);
}

export function findTally(db: Db, pid: number, uid: number): Tally | undefined {
  const row = db.one<{ yes: number; no: number; mine: number | null }>(
    `SELECT e.votes_yes AS yes, e.votes_no AS no, v.yes AS mine
     FROM entries e LEFT JOIN votes v ON v.pid = e.pid AND v.uid = ?
     WHERE e.pid = ?`,
    uid,
    pid,
  );
  if (!row) return undefined;
  return { pid, yes: row.yes, no: row.no, selected: row.mine === null ? 'none' : row.mine ? 'yes' : 'no' };
}

export function findTallies(db: Db, pids: number[], uid: number): Tally[] {
  return db
    .all<{ pid: number; yes: number; no: number; mine: number | null }>(
      `SELECT e.pid, e.votes_yes AS yes, e.votes_no AS no, v.yes AS mine
     FROM entries e LEFT JOIN votes v ON v.pid = e.pid AND v.uid = ?
     WHERE e.pid IN (SELECT value FROM json_each(?))`,
      uid,
      JSON.stringify(pids),
    )
    .map((row) => ({
      pid: row.pid,
      yes: row.yes,
      no: row.no,
      selected: row.mine === null ? 'none' : row.mine ? 'yes' : 'no',
    }));
}

export function removeVotesOfUser(db: Db, uid: number, limit: number): number {
  const batch = db.all<{ pid: number; yes: number }>('SELECT pid, yes FROM votes WHERE uid = ? LIMIT ?', uid, limit);
  for (const vote of batch) {
    moveTally(db, vote.pid, vote.yes, -1);
    db.run('DELETE FROM votes WHERE pid = ? AND uid = ?', vote.pid, uid);
  }
  return batch.length;
}
