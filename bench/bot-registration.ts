import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { createScryptPasswords } from '../lib/accounts/passwords.ts';
import { createUser } from '../lib/accounts/users.ts';
import { openDb } from '../lib/db/db.ts';
import { inviteLifetimeSeconds } from '../lib/product.ts';
import { createInvite } from '../lib/registration/invites.ts';
import { basePort, startBoard, stop } from './harness.ts';

/**
 * Issue 31 part 5, measured against a botnet (a benchmark, not a timed test): for each registration
 * mode, bots from 1,000 addresses of 198.18.0.0/15 (X-Forwarded-For, BOARD_TRUST_PROXY=1, default
 * limits) register as fast as they can, solve proof of work at full speed on this machine when the
 * board asks (altcha-lib, PBKDF2 on libuv's threads), log in and post a link; meanwhile an honest
 * person registers every 10 s from an address of their own, and a member (made before the wave,
 * as an operator makes the first account with board-admin) logs in every 10 s from another. Prints
 * per mode: accounts that got in (201), applications left waiting (202), links that went live, the
 * bots' rate, and what the honest registration and the member's login cost. BOT_SECONDS per mode (default 120), BOT_MODES (default all), BOT_CONCURRENCY (16).
 *   node --import tsx bench/bot-registration.ts
 */
const seconds = Number(process.env.BOT_SECONDS ?? 120);
const concurrency = Number(process.env.BOT_CONCURRENCY ?? 16);
const modes = (process.env.BOT_MODES ?? 'open,open+pow,approval,invite').split(',');
const password = 'ein langes Bot-Passwort';
const application = 'Ich lese hier gern mit und möchte mitdiskutieren, über Bücher und Gärten.';

/** 1,000 addresses spread over 198.18.0.0/15 (RFC 2544's benchmarking range: never routed). */
const addresses = Array.from({ length: 1000 }, (_, i) => {
  const n = (i * 131) % 131_072;
  return `198.${18 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
});

interface Tally {
  attempts: number;
  byStatus: Map<number, number>;
  links: number;
  honest: { ms: number; status: number }[];
  member: { ms: number; status: number }[];
}

/** Median and max seconds, the count and the statuses seen, of timed answers. */
function timings(answers: { ms: number; status: number }[]): string {
  const sorted = answers.map((a) => a.ms).sort((a, b) => a - b);
  if (!sorted.length) return 'none';
  const statuses = [...new Set(answers.map((a) => a.status))].join('/');
  return `${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s, max ${(sorted.at(-1)! / 1000).toFixed(2)} s (${sorted.length}, ${statuses})`;
}

/** The member who logs in during the wave: made in the board's database before the bots start (scrypt at the board's default cost). */
const memberName = 'Mitglied seit Langem';
const memberHash = await createScryptPasswords().hash(password, 17);

async function send(url: string, path: string, ip: string, fields?: Record<string, string>, cookie = '') {
  const res = await fetch(url + path, {
    method: fields ? 'POST' : 'GET',
    headers: {
      'x-forwarded-for': ip,
      ...(fields ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...(cookie ? { cookie } : {}),
    },
    body: fields ? new URLSearchParams(fields) : undefined,
  });
  const text = await res.text();
  return { status: res.status, text, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? '' };
}

async function altcha(url: string, ip: string): Promise<string> {
  const challenge = JSON.parse((await send(url, '/api/auth/challenge', ip)).text) as Challenge;
  const solution = (await solveChallenge({ challenge, deriveKey }))!;
  return Buffer.from(
    JSON.stringify({ challenge, solution: { counter: solution.counter, derivedKey: solution.derivedKey } }),
  ).toString('base64');
}

async function register(url: string, ip: string, user: string, pow: boolean, invite?: string) {
  const fields: Record<string, string> = { user, pass1: password, pass2: password, application };
  if (invite) fields.invite = invite;
  if (pow) fields.altcha = await altcha(url, ip);
  return send(url, '/api/auth/newuser', ip, fields);
}

async function runMode(mode: string, index: number): Promise<string> {
  const pow = mode.endsWith('+pow');
  const registration = mode.replace('+pow', '');
  const dataDir = mkdtempSync(join(tmpdir(), 'board-bots-'));
  const tally: Tally = { attempts: 0, byStatus: new Map(), links: 0, honest: [], member: [] };
  const board = await startBoard(dataDir, basePort + 40 + index, {
    BOARD_LIMITS: '1',
    BOARD_REGISTRATION: registration,
    BOARD_POW: pow ? '1' : '0',
  });
  // Stopped however the run ends: a board left running holds its port and would answer the next run.
  try {
    const memberDb = openDb(join(dataDir, 'board.db'));
    createUser(memberDb, memberName, memberHash, Math.floor(Date.now() / 1000), { trustSet: 1 });
    await memberDb.close();
    const deadline = Date.now() + seconds * 1000;
    let next = 0;
    const bot = async (b: number) => {
      while (Date.now() < deadline) {
        const n = next++;
        const ip = addresses[n % addresses.length]!;
        const user = `bot ${index}-${b}-${n}`;
        try {
          const answer = await register(board.url, ip, user, pow);
          tally.attempts++;
          tally.byStatus.set(answer.status, (tally.byStatus.get(answer.status) ?? 0) + 1);
          if (answer.status === 429) await new Promise((r) => setTimeout(r, 50));
          if (answer.status !== 201) continue;
          const login = await send(board.url, '/api/auth/login', ip, { user, pass: password });
          if (login.status !== 200) continue;
          const link = await send(
            board.url,
            '/api/entry/create',
            ip,
            { content: `Billig kaufen: https://spam.example/${n}` },
            login.cookie,
          );
          if (link.status === 201) tally.links++;
        } catch {
          tally.byStatus.set(0, (tally.byStatus.get(0) ?? 0) + 1);
        }
      }
    };
    // In invite mode the honest person has an invite (as the administrator makes them); the bots have none.
    const inviter = registration === 'invite' ? openDb(join(dataDir, 'board.db')) : undefined;
    const honest = async () => {
      for (let h = 0; Date.now() < deadline; h++) {
        const invite = inviter && createInvite(inviter, 0, inviteLifetimeSeconds, Math.floor(Date.now() / 1000))!.token;
        const started = performance.now();
        const answer = await register(board.url, `203.0.113.${(h % 250) + 1}`, `Mensch ${index}-${h}`, pow, invite);
        tally.honest.push({ ms: performance.now() - started, status: answer.status });
        await new Promise((r) => setTimeout(r, 10_000));
      }
    };
    const member = async () => {
      while (Date.now() < deadline) {
        const started = performance.now();
        const answer = await send(board.url, '/api/auth/login', '203.0.113.251', { user: memberName, pass: password });
        tally.member.push({ ms: performance.now() - started, status: answer.status });
        await new Promise((r) => setTimeout(r, 10_000));
      }
    };
    await Promise.all([...Array.from({ length: concurrency }, (_, b) => bot(b)), honest(), member()]);
    await inviter?.close();
  } finally {
    await stop(board.proc);
  }
  const db = new Database(join(dataDir, 'board.db'), { readonly: true });
  const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const accounts = count("SELECT count(*) AS n FROM users WHERE status = '' AND username LIKE 'bot %'");
  const waiting = count("SELECT count(*) AS n FROM users WHERE status = 'pending' AND username LIKE 'bot %'");
  const live = count("SELECT count(*) AS n FROM entries WHERE link <> '' AND deleted = 0");
  const modeInForce =
    (db.prepare("SELECT value FROM board_state WHERE name = 'registration'").get() as { value: string } | undefined)
      ?.value ?? 'configured';
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
  const statuses = [...tally.byStatus]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
  return `| ${mode} | ${tally.attempts} (${(tally.attempts / seconds).toFixed(1)}/s) | ${statuses} | ${accounts} | ${waiting} | ${live} (${tally.links}) | ${timings(tally.honest)} | ${timings(tally.member)} | ${modeInForce} |`;
}

console.log(
  `bots: ${concurrency} at once from ${addresses.length} addresses of 198.18.0.0/15, ${seconds} s per mode, default limits`,
);
console.log(
  "| mode | bot registrations | answers | bot accounts in | bot applications waiting | links live (bots' 201s) | honest registration: median, max (n, status) | member's login: median, max (n, status) | door at the end |",
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [i, mode] of modes.entries()) console.log(await runMode(mode, i));
