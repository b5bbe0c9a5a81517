import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { openDb } from '../lib/db/db.ts';
import { latestMaxDepth } from '../lib/product.ts';
import { createScryptPasswords } from '../lib/accounts/passwords.ts';
import { entryLink } from '../lib/text/links.ts';
import { indexEntry } from '../lib/search/index.ts';
import { tokenHash } from '../lib/accounts/tokens.ts';
import { prng } from '../test/helpers/prng.ts';
import { germanText } from './german.ts';

/**
 * Seeds a benchmark board straight into SQLite through the project's own schema: users,
 * entries (about 30 % top-level, replies in chains, some deeper than 60 levels, one thread
 * with 150 direct replies, one chain 80 levels deep), votes, bumps, deletions, and links with
 * their shared preview records (so feed and thread JSON carry `preview` as in production).
 * The text is German-looking (bench/german.ts: compounds, short words, a rare word) and is in
 * the search index, as the server would have kept it. Deterministic for a given size.
 * The denormalised columns (root, depth, reply_count, last_activity, latest, tallies,
 * counters) are computed in memory exactly as the server would have kept them.
 */
export interface SeedOptions {
  entries: number;
  users?: number;
  votes?: number;
  /** Users 1..sessions get a session whose cookie value is benchSessionToken(uid). */
  sessions?: number;
}

export const benchPassword = 'bench password 1234';
export const hotThreadPid = 1;
/** A top-level entry with a reply chain 80 levels deep below it: the board's newest 80 entries. */
export const deepThreadPid = 3;

/** The cookie value of a seeded user's session (deterministic, so the load generator knows it). */
export function benchSessionToken(uid: number): string {
  return createHash('sha256').update(`bench-session-${uid}`).digest('base64url');
}

export function benchUsername(uid: number): string {
  return `user${String(uid).padStart(5, '0')}`;
}

export async function seedBoard(dbPath: string, options: SeedOptions): Promise<Record<string, number>> {
  const n = options.entries;
  const userCount = options.users ?? 10_000;
  const voteCount = options.votes ?? 2 * n;
  const sessionCount = Math.min(options.sessions ?? 1000, userCount);
  const random = prng(20261121);
  const end = Math.floor(Date.now() / 1000);
  const start = end - n * 2 - 86_400;

  // Tree shape, in creation order (pid = index + 1).
  const parent = new Int32Array(n + 1);
  const depth = new Int32Array(n + 1);
  const root = new Int32Array(n + 1);
  const createdAt = new Float64Array(n + 1);
  const author = new Int32Array(n + 1);
  const chainTips = new Int32Array(64);
  const chainLeft = new Int32Array(64);
  const deepChainStart = Math.max(301, n - 79);
  for (let pid = 1; pid <= n; pid++) {
    createdAt[pid] = start + pid * 2;
    author[pid] = 1 + Math.floor(random() * userCount);
    const r = random();
    let p = 0;
    if (pid > 1 && pid <= 300 && pid % 2 === 0)
      p = hotThreadPid; // the hot thread: 150 direct replies
    // The random chains below reach 60 levels only on boards of some 10,000 entries; this one is
    // there at every size, and being newest it is what `latest` would show if it looked deeper
    // than 50 levels, so even the 1,000-entry smoke test checks that limit.
    else if (pid >= deepChainStart) p = pid === deepChainStart ? deepThreadPid : pid - 1;
    else if (pid < 20 || r < 0.3) p = 0;
    else if (r < 0.6) p = 1 + Math.floor(random() * (pid - 1));
    else {
      const c = Math.floor(random() * chainTips.length);
      if (chainLeft[c]! <= 0 || chainTips[c] === 0) {
        chainTips[c] = 1 + Math.floor(random() * (pid - 1));
        chainLeft[c] = 5 + Math.floor(random() * 80); // some chains run deeper than 60 levels
      }
      p = chainTips[c]!;
      chainTips[c] = pid;
      chainLeft[c]!--;
    }
    if (p && depth[p]! >= 120) p = root[p]!; // deep chains, but not without end
    parent[pid] = p;
    depth[pid] = p ? depth[p]! + 1 : 0;
    root[pid] = p ? root[p]! : pid;
  }

  // A few thousand deletions (never the hot thread's root).
  const deleted = new Uint8Array(n + 1);
  for (let i = 0; i < Math.max(1, Math.floor(n / 300)); i++) deleted[2 + Math.floor(random() * (n - 1))] = 1;

  // Activity and `latest`, replaying creation order: newer entries overwrite older pointers.
  const replyCount = new Int32Array(n + 1);
  const lastActivity = new Float64Array(n + 1);
  const latest = new Int32Array(n + 1);
  const skipped = new Int32Array(n + 1);
  for (let pid = 1; pid <= n; pid++) {
    lastActivity[pid] = createdAt[pid]!;
    if (parent[pid]) replyCount[parent[pid]!]!++;
    for (let a = parent[pid]!, dist = 1; a !== 0; a = parent[a]!, dist++) {
      lastActivity[a] = createdAt[pid]!;
      if (dist <= latestMaxDepth && !deleted[pid]) {
        latest[a] = pid;
        skipped[a] = dist - 1;
      }
    }
  }

  // A few thousand bumps, each moving the entry's and its ancestors' activity.
  const bumpCount = new Int32Array(n + 1);
  const lastBump = new Float64Array(n + 1);
  for (let i = 0; i < Math.max(1, Math.floor(n / 300)); i++) {
    const pid = 1 + Math.floor(random() * n);
    if (deleted[pid]) continue;
    const at = Math.floor(createdAt[pid]! + random() * (end - createdAt[pid]!));
    // Only as the server allows it: a later bump waits out the cooldown (n days after the n-th).
    if (at < lastBump[pid]! + bumpCount[pid]! * 86_400) continue;
    bumpCount[pid]!++;
    lastBump[pid] = at;
    for (let a = pid; a !== 0; a = parent[a]!) lastActivity[a] = Math.max(lastActivity[a]!, at);
  }

  // Votes: distinct (pid, uid) pairs by construction.
  const votesYes = new Int32Array(n + 1);
  const votesNo = new Int32Array(n + 1);

  rmSync(dbPath, { force: true });
  rmSync(`${dbPath}-wal`, { force: true });
  rmSync(`${dbPath}-shm`, { force: true });
  const db = openDb(dbPath);
  const raw = db.raw;
  raw.pragma('synchronous = OFF');
  // The indexes of a 10M-entry board are gigabytes: with the server's 32 MiB page cache the
  // inserts thrashed the disk (1 MiB/s); 256 bytes of cache per entry (2.4 GiB at 10M) keeps them in memory.
  raw.pragma(`cache_size = -${Math.max(32_768, Math.ceil(n / 4))}`);
  const passHash = await createScryptPasswords().hash(benchPassword, 17); // one real hash, reused by every user

  const insertUser = raw.prepare(
    'INSERT INTO users (uid, username, username_key, pass_hash, created_at, last_login) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const insertSession = raw.prepare(
    'INSERT INTO sessions (token_hash, uid, created_at, expires, description) VALUES (?, ?, ?, ?, ?)',
  );
  raw.transaction(() => {
    for (let uid = 1; uid <= userCount; uid++) {
      const name = benchUsername(uid);
      insertUser.run(uid, name, name, passHash, start - 86_400, end);
      if (uid <= sessionCount)
        insertSession.run(tokenHash(benchSessionToken(uid)), uid, end, end + 365 * 86_400, 'bench');
    }
  })();

  const insertVote = raw.prepare('INSERT INTO votes (pid, uid, yes, created_at) VALUES (?, ?, ?, ?)');
  const batch = 50_000;
  for (let k0 = 0; k0 < voteCount; k0 += batch) {
    raw.transaction(() => {
      for (let k = k0; k < Math.min(voteCount, k0 + batch); k++) {
        const uid = (k % userCount) + 1;
        const j = Math.floor(k / userCount);
        const pid = ((uid * 7919 + j * 104_729) % n) + 1;
        const yes = (k * 2654435761) % 7 < 5 ? 1 : 0;
        if (yes) votesYes[pid]!++;
        else votesNo[pid]!++;
        insertVote.run(pid, uid, yes, end);
      }
    })();
  }

  const insertEntry = raw.prepare(
    `INSERT INTO entries (pid, uid, created_at, content, filepath, reply_to, root, depth, reply_count, last_activity,
       deleted, bump_count, last_bump, latest_pid, latest_skipped, votes_yes, votes_no, link)
     VALUES (?, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const previewUrls = new Set<string>();
  const text = prng(20261122); // apart from `random`, so the tree is the same whatever the text
  let live = 0;
  let liveTop = 0;
  const entriesStarted = performance.now();
  for (let p0 = 1; p0 <= n; p0 += batch) {
    raw.transaction(() => {
      for (let pid = p0; pid < Math.min(n + 1, p0 + batch); pid++) {
        const isDeleted = deleted[pid]!;
        const words = germanText(text);
        const content = isDeleted ? '' : `${words}${seedLinkText(pid)}`;
        const link = entryLink(content);
        if (link) previewUrls.add(link);
        if (!isDeleted) {
          live++;
          if (!parent[pid]) liveTop++;
        }
        insertEntry.run(
          pid,
          author[pid],
          createdAt[pid],
          content,
          parent[pid],
          root[pid],
          depth[pid],
          replyCount[pid],
          lastActivity[pid],
          isDeleted,
          bumpCount[pid],
          lastBump[pid],
          latest[pid],
          skipped[pid],
          votesYes[pid],
          votesNo[pid],
          link,
        );
        if (!isDeleted) indexEntry(db, { pid, uid: author[pid]!, content, alt: '' });
      }
    })();
  }

  const entriesSeconds = (performance.now() - entriesStarted) / 1000;
  // The server's backfill ends with its index merged into one segment too (lib/search/backfill.ts).
  const optimizeStarted = performance.now();
  raw.exec("INSERT INTO search (search) VALUES ('optimize')");
  const optimizeSeconds = (performance.now() - optimizeStarted) / 1000;

  // One preview record per linked URL, as the fetcher would have left them (thumbnails not on disk).
  const insertPreview = raw.prepare(
    'INSERT INTO previews (url, kind, title, site, thumb, fetched_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  raw.transaction(() => {
    for (const url of previewUrls) {
      const video = url.startsWith('https://www.youtube.com/');
      const key = createHash('sha256').update(url).digest('hex').slice(0, 32);
      insertPreview.run(
        url,
        video ? 'youtube' : 'page',
        video
          ? `Ein Video über ${url.slice(-11)}`
          : `Schlagzeile zu ${url.split('/').pop()}: etwas Wichtiges ist passiert`,
        video ? 'Ein Kanal' : 'nachrichten.example',
        `preview/${key}.jpg`,
        end,
      );
    }
  })();

  const totalYes = votesYes.reduce((a, b) => a + b, 0);
  const counters: Record<string, number> = {
    users: userCount,
    entries: live,
    toplevel: liveTop,
    replies: live - liveTop,
    votes_yes: totalYes,
    votes_no: voteCount - totalYes,
  };
  const setCounter = raw.prepare('UPDATE counters SET value = ? WHERE name = ?');
  for (const [name, value] of Object.entries(counters)) setCounter.run(value, name);
  raw.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  let maxDepth = 0;
  for (let pid = 1; pid <= n; pid++) maxDepth = Math.max(maxDepth, depth[pid]!);
  // The two phases that grow with the index: inserting entries with their index rows, and the merge.
  return {
    ...counters,
    max_depth: maxDepth,
    hot_thread_replies: replyCount[hotThreadPid]!,
    entries_seconds: entriesSeconds,
    optimize_seconds: optimizeSeconds,
  };
}

/** Every 4th entry links to one of 2,000 articles, every 40th to one of 100 videos: shared preview records. */
function seedLinkText(pid: number): string {
  if (pid % 40 === 0) return ` Video: https://youtu.be/bench${String(pid % 100).padStart(6, '0')}`;
  if (pid % 4 === 0) return ` Siehe https://nachrichten.example/artikel/${pid % 2000}.`;
  return '';
}

// CLI: node --import tsx bench/seed.ts <db path> <entries>
if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, count] = process.argv.slice(2);
  if (!path || !count) {
    console.error('usage: bench/seed.ts <db path> <entries>');
    process.exit(2);
  }
  const started = Date.now();
  const stats = await seedBoard(path, { entries: Number(count) });
  console.log(JSON.stringify({ ...stats, seconds: (Date.now() - started) / 1000 }));
}
