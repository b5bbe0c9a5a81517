import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { imageFixture, password } from '../helpers.ts';
import { randomTools } from './soak.ts';

/**
 * A write load of several concurrent clients, each with its own X-Forwarded-For address and
 * account: entries (top-level, replies in chains, some with an image), votes, bumps, edits and
 * deletes of own entries, avatars and registrations. It records every write the server acknowledged with a 2xx,
 * so a test can check afterwards that each one is in the database. The server may die at any
 * moment (see serverDown/serverUp): clients then wait and carry on against the new address.
 */
export interface AckedEntry {
  uid: number;
  content: string;
  filepath: string;
  replyTo: number;
}

export interface AckedWrites {
  entries: Map<number, AckedEntry>;
  /** Deletes answered 200. */
  deleted: Set<number>;
  /** Entries whose delete was sent but never answered: either state is right. */
  maybeDeleted: Set<number>;
  /** Entries whose edit was sent but never answered: the old or the new text is right. */
  maybeEdited: Set<number>;
  /** Last acknowledged avatar path per uid. */
  avatars: Map<number, string>;
  /** Users whose avatar change was cut off: either avatar is right. */
  maybeAvatar: Set<number>;
  /** Last acknowledged vote state per `uid:pid` (from the answer's `selected`). */
  votes: Map<string, 'yes' | 'no' | 'none'>;
  /** Vote pairs whose last request was never answered: either state is right. */
  maybeVoted: Set<string>;
  /** Acknowledged bumps per pid. */
  bumps: Map<number, number>;
  registrations: Set<string>;
}

export interface LoadStats {
  /** Write requests answered 2xx. */
  acknowledged: number;
  /** Requests that got no answer because the server was killed. */
  cutOff: number;
  /** Image creates and deletes of image entries cut off by a kill: each may leave one orphaned file. */
  mediaAtRisk: number;
  /** Answers 500 or above (must stay 0). */
  serverErrors: string[];
  /** Network failures while the server was meant to be up (must stay 0). */
  unexpectedFailures: string[];
}

interface Worker {
  index: number;
  ip: string;
  cookie: string;
  uid: number;
  own: number[];
}

export class WriteLoad {
  readonly acked: AckedWrites = {
    entries: new Map(),
    deleted: new Set(),
    maybeDeleted: new Set(),
    maybeEdited: new Set(),
    avatars: new Map(),
    maybeAvatar: new Set(),
    votes: new Map(),
    maybeVoted: new Set(),
    bumps: new Map(),
    registrations: new Set(),
  };
  readonly stats: LoadStats = { acknowledged: 0, cutOff: 0, mediaAtRisk: 0, serverErrors: [], unexpectedFailures: [] };
  private url: string;
  private generation = 0;
  private down = false;
  private up: Promise<void> = Promise.resolve();
  private markUp: () => void = () => {};
  private stopping = false;
  private running: Promise<void>[] = [];
  private pids: number[] = [];
  private counter = 0;
  private inFlight = 0;
  private image: Buffer = Buffer.alloc(0);
  private readonly rnd;
  private readonly workerCount: number;
  private readonly tag: string;

  constructor(url: string, random: () => number, workerCount: number, tag: string) {
    this.url = url;
    this.workerCount = workerCount;
    this.tag = tag;
    this.rnd = randomTools(random);
  }

  /** Registers and logs in every client, then starts the loops. */
  async start(): Promise<void> {
    this.image = await imageFixture();
    const workers: Worker[] = [];
    for (let i = 0; i < this.workerCount; i++) {
      const worker: Worker = { index: i, ip: `198.18.${i}.${this.rnd.int(1, 254)}`, cookie: '', uid: 0, own: [] };
      const name = `${this.tag} writer ${i}`;
      const created = await this.call(
        worker,
        'POST',
        '/api/auth/newuser',
        form({ user: name, pass1: password, pass2: password }),
      );
      if (created?.status !== 201)
        throw new Error(`register ${name}: ${created?.status} ${JSON.stringify(created?.body)}`);
      this.acked.registrations.add(name);
      const login = await this.call(
        worker,
        'POST',
        '/api/auth/login',
        form({ user: name, pass: password, timeout: '31536000' }),
      );
      if (login?.status !== 200) throw new Error(`login ${name}: ${login?.status}`);
      const info = await this.call(worker, 'GET', '/api/user/info');
      worker.uid = (info!.body as { uid: number }).uid;
      workers.push(worker);
    }
    this.running = workers.map((w) => this.loop(w));
  }

  /** Stops the loops after their current request. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.markUp();
    await Promise.all(this.running);
  }

  /** Call right before killing the server: requests failing from now on are expected. */
  serverDown(): void {
    this.down = true;
    this.generation++;
    this.up = new Promise((resolve) => {
      this.markUp = resolve;
    });
  }

  /**
   * Resolves once no request is in flight. After a kill, call it before looking at the
   * database: an answer may already be in a client's socket but not yet recorded.
   */
  async settled(): Promise<void> {
    while (this.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** The server answers again, at this address. */
  serverUp(url: string): void {
    this.url = url;
    this.down = false;
    this.markUp();
  }

  /** A deep copy of what was acknowledged so far. */
  snapshot(): AckedWrites {
    const a = this.acked;
    return {
      entries: new Map([...a.entries].map(([pid, e]) => [pid, { ...e }])),
      deleted: new Set(a.deleted),
      maybeDeleted: new Set(a.maybeDeleted),
      maybeEdited: new Set(a.maybeEdited),
      avatars: new Map(a.avatars),
      maybeAvatar: new Set(a.maybeAvatar),
      votes: new Map(a.votes),
      maybeVoted: new Set(a.maybeVoted),
      bumps: new Map(a.bumps),
      registrations: new Set(a.registrations),
    };
  }

  private async loop(worker: Worker): Promise<void> {
    while (!this.stopping) {
      if (this.down) {
        await this.up;
        continue;
      }
      await this.step(worker);
    }
  }

  /** One random write. */
  private async step(w: Worker): Promise<void> {
    const roll = this.rnd.random();
    const n = ++this.counter;
    if (roll < 0.45 || this.pids.length < 3) {
      // Replies go mostly to the newest entry, so chains grow deep; an image now and then.
      const replyTo =
        this.pids.length && this.rnd.chance(0.6)
          ? this.rnd.chance(0.6)
            ? this.pids.at(-1)!
            : this.rnd.pick(this.pids)
          : 0;
      const withImage = this.rnd.chance(0.12);
      const content = `${this.tag} entry ${n} by ${w.index} ${this.rnd.pick(['Grüße', 'hello', 'ünïcødé ✓', 'a\nb', ''])}`;
      const body = new FormData();
      body.append('content', content);
      if (replyTo) body.append('reply_to', String(replyTo));
      if (withImage) body.append('file', new Blob([this.image], { type: 'image/jpeg' }), 'photo.jpg');
      const answer = await this.call(w, 'POST', '/api/entry/create', body, { mediaAtRisk: withImage });
      if (answer?.status === 201) {
        const b = answer.body as { pid: number; content: string; filepath: string };
        this.acked.entries.set(b.pid, { uid: w.uid, content: b.content, filepath: b.filepath, replyTo });
        this.pids.push(b.pid);
        w.own.push(b.pid);
      }
    } else if (roll < 0.75) {
      const pid = this.rnd.pick(this.pids);
      const key = `${w.uid}:${pid}`;
      const answer = await this.call(
        w,
        'POST',
        `/api/entry/${pid}/vote`,
        form({ mode: this.rnd.pick(['yes', 'no']) }),
        { onCutOff: () => this.acked.maybeVoted.add(key) },
      );
      if (answer?.status === 200) {
        this.acked.votes.set(key, (answer.body as { selected: 'yes' | 'no' | 'none' }).selected);
        this.acked.maybeVoted.delete(key);
      }
    } else if (roll < 0.85) {
      const pid = this.rnd.pick(this.pids);
      const answer = await this.call(w, 'POST', `/api/entry/${pid}/bump`);
      if (answer?.status === 200) this.acked.bumps.set(pid, (this.acked.bumps.get(pid) ?? 0) + 1);
    } else if (roll < 0.88) {
      // An edit of an own live entry, or a new avatar (the old file goes once the new one is saved).
      const candidates = w.own.filter((pid) => !this.acked.deleted.has(pid) && !this.acked.maybeDeleted.has(pid));
      if (candidates.length && this.rnd.chance(0.6)) {
        const pid = this.rnd.pick(candidates);
        const content = `${this.tag} edit ${n} by ${w.index}`;
        const answer = await this.call(w, 'POST', `/api/entry/${pid}/edit`, form({ content }), {
          onCutOff: () => this.acked.maybeEdited.add(pid),
        });
        if (answer?.status === 200) {
          this.acked.entries.get(pid)!.content = content;
          this.acked.maybeEdited.delete(pid);
        }
      } else {
        const body = new FormData();
        body.append('avatar', new Blob([this.image], { type: 'image/jpeg' }), 'me.jpg');
        const answer = await this.call(w, 'POST', '/api/user/avatar', body, {
          mediaAtRisk: true,
          onCutOff: () => this.acked.maybeAvatar.add(w.uid),
        });
        if (answer?.status === 200) {
          this.acked.avatars.set(w.uid, (answer.body as { avatar: string }).avatar);
          this.acked.maybeAvatar.delete(w.uid);
        }
      }
    } else if (roll < 0.93) {
      const candidates = w.own.filter((pid) => !this.acked.deleted.has(pid) && !this.acked.maybeDeleted.has(pid));
      if (!candidates.length) return;
      const pid = this.rnd.pick(candidates);
      const hasImage = Boolean(this.acked.entries.get(pid)?.filepath);
      const answer = await this.call(w, 'POST', `/api/entry/${pid}/delete`, undefined, {
        mediaAtRisk: hasImage,
        onCutOff: () => this.acked.maybeDeleted.add(pid),
      });
      if (answer?.status === 200) this.acked.deleted.add(pid);
    } else {
      // A newcomer from an address of their own (registrations are limited per address).
      const name = `${this.tag} newcomer ${n}`;
      const visitor: Worker = {
        index: -1,
        ip: `198.19.${this.rnd.int(0, 255)}.${this.rnd.int(1, 254)}`,
        cookie: '',
        uid: 0,
        own: [],
      };
      const answer = await this.call(
        visitor,
        'POST',
        '/api/auth/newuser',
        form({ user: name, pass1: password, pass2: password }),
      );
      if (answer?.status === 201) this.acked.registrations.add(name);
    }
  }

  /**
   * One request; undefined when the server died under it. 2xx writes count as acknowledged;
   * 4xx answers (a reply to an entry just deleted, a bump in its cooldown) are normal here.
   */
  private async call(
    w: Worker,
    method: string,
    path: string,
    body?: FormData | URLSearchParams,
    options: { mediaAtRisk?: boolean; onCutOff?: () => void } = {},
  ) {
    const generation = this.generation;
    const headers: Record<string, string> = { 'x-forwarded-for': w.ip };
    if (w.cookie) headers.cookie = `session=${w.cookie}`;
    this.inFlight++;
    try {
      const res = await fetch(this.url + path, { method, body, headers, signal: AbortSignal.timeout(20_000) });
      const text = await res.text();
      const cookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
      if (cookie) w.cookie = cookie.slice('session='.length).split(';')[0]!;
      if (res.status >= 500) this.stats.serverErrors.push(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
      if (method === 'POST' && res.status >= 200 && res.status < 300) this.stats.acknowledged++;
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : undefined };
    } catch (err) {
      if (generation === this.generation && !this.down) {
        this.stats.unexpectedFailures.push(
          `${method} ${path}: ${(err as Error).message} ${String((err as Error).cause ?? '')}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      } else {
        this.stats.cutOff++;
        if (options.mediaAtRisk) this.stats.mediaAtRisk++;
        options.onCutOff?.();
      }
      return undefined;
    } finally {
      this.inFlight--;
    }
  }
}

function form(fields: Record<string, string>): URLSearchParams {
  return new URLSearchParams(fields);
}

export interface Verification {
  /** Acknowledged writes that can be checked one by one. */
  checked: number;
  /** Of those, the ones found in the database. */
  found: number;
  problems: string[];
}

/**
 * Checks acknowledged writes against a database: every acknowledged entry with its author,
 * parent, text and image (unless a delete of it was acknowledged or cut off), every
 * acknowledged delete, the last acknowledged edit and avatar, the last acknowledged vote of each
 * user on each entry (unless a later one was cut off), at least as many bumps as acknowledged,
 * every registration.
 * `monotonicOnly` checks only what later writes cannot undo (entries exist, bumps, registrations):
 * for a backup taken while the load went on.
 */
export function verifyAcked(
  db: Database.Database,
  acked: AckedWrites,
  mediaDir: string | undefined,
  options: { monotonicOnly?: boolean } = {},
): Verification {
  const problems: string[] = [];
  let checked = 0;
  let found = 0;
  const check = (ok: boolean, problem: string) => {
    checked++;
    if (ok) found++;
    else if (problems.length < 20) problems.push(problem);
  };
  const entry = db.prepare('SELECT uid, content, filepath, reply_to, deleted, bump_count FROM entries WHERE pid = ?');
  for (const [pid, want] of acked.entries) {
    const row = entry.get(pid) as
      | { uid: number; content: string; filepath: string; reply_to: number; deleted: number }
      | undefined;
    if (!row || row.uid !== want.uid || row.reply_to !== want.replyTo) {
      check(false, `acknowledged entry ${pid} ${row ? `differs: ${JSON.stringify(row)}` : 'is missing'}`);
      continue;
    }
    if (options.monotonicOnly || acked.maybeDeleted.has(pid) || acked.deleted.has(pid)) {
      check(true, '');
      continue;
    }
    const same =
      row.deleted === 0 &&
      (row.content === want.content || acked.maybeEdited.has(pid)) &&
      row.filepath === want.filepath;
    const fileThere = !want.filepath || !mediaDir || existsSync(join(mediaDir, want.filepath));
    check(
      same && fileThere,
      `acknowledged entry ${pid}: ${JSON.stringify(row)}, expected ${JSON.stringify(want)}${fileThere ? '' : ', its image file is missing'}`,
    );
  }
  if (!options.monotonicOnly) {
    for (const pid of acked.deleted)
      check(
        (entry.get(pid) as { deleted: number } | undefined)?.deleted === 1,
        `acknowledged delete of ${pid} is not in the database`,
      );
    const vote = db.prepare('SELECT yes FROM votes WHERE uid = ? AND pid = ?');
    for (const [key, selected] of acked.votes) {
      if (acked.maybeVoted.has(key)) continue;
      const [uid, pid] = key.split(':').map(Number);
      const row = vote.get(uid, pid) as { yes: number } | undefined;
      const stored = row === undefined ? 'none' : row.yes ? 'yes' : 'no';
      check(stored === selected, `vote ${key}: stored ${stored}, acknowledged ${selected}`);
    }
  }
  for (const [pid, count] of acked.bumps) {
    const row = entry.get(pid) as { bump_count: number } | undefined;
    for (let i = 0; i < count; i++)
      check((row?.bump_count ?? 0) > i, `entry ${pid}: bump_count ${row?.bump_count}, ${count} bumps acknowledged`);
  }
  if (!options.monotonicOnly) {
    const avatar = db.prepare('SELECT avatar FROM users WHERE uid = ?');
    for (const [uid, path] of acked.avatars) {
      if (acked.maybeAvatar.has(uid)) continue;
      const stored = (avatar.get(uid) as { avatar: string } | undefined)?.avatar;
      const fileThere = !mediaDir || existsSync(join(mediaDir, path));
      check(
        stored === path && fileThere,
        `user ${uid}: avatar ${stored}, acknowledged ${path}${fileThere ? '' : ', its file is missing'}`,
      );
    }
  }
  const user = db.prepare('SELECT 1 FROM users WHERE username = ?');
  for (const name of acked.registrations)
    check(user.get(name) !== undefined, `acknowledged registration of ${name} is missing`);
  return { checked, found, problems };
}
