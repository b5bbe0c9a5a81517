import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp, type App, type AppOptions } from '../lib/app.ts';
import { movableClock } from '../lib/clock.ts';
import { loadConfig, prepareDataDir, type Config } from '../lib/config.ts';

export interface TestBoard {
  url: string;
  app: App;
  config: Config;
  clock: ReturnType<typeof movableClock>;
  logs: string[];
  /** A fresh cookie-keeping client. */
  client(options?: { ip?: string }): Client;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Use this data folder (e.g. a stopped board's, to test a restart); it is then left in place by close(). */
  dataDir?: string;
  /** Start time of the movable clock (Unix seconds), for what the server does at start-up; default now. */
  now?: number;
  /** Link-preview knobs for createApp (a short fetch timeout, injected DNS). */
  preview?: AppOptions['preview'];
  /** Slow-client timeouts for createApp (short ones keep the resilience tests fast). */
  timeouts?: AppOptions['timeouts'];
}

/** A few real rows of the bundled IP-to-ASN data set: test servers need not load all 33 MB. */
export const asnFixtureDir = fileURLToPath(new URL('./fixtures/asn', import.meta.url));

/**
 * Starts the real server on port 0 with a temporary BOARD_DATA, cheap scrypt, the small ASN
 * fixture and a movable clock. `env` adds BOARD_* variables, exactly as a sysadmin would set them.
 */
export async function startBoard(env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestBoard> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'board-test-'));
  const config = loadConfig({ BOARD_DATA: dataDir, PORT: '0', BOARD_SCRYPT_LOGN: '14', BOARD_PREVIEW: '0', BOARD_ASN_DB: asnFixtureDir, ...env });
  prepareDataDir(config);
  const clock = movableClock(options.now);
  const logs: string[] = [];
  const app = createApp(config, { clock, log: (line) => logs.push(line), preview: options.preview, timeouts: options.timeouts });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url, app, config, clock, logs,
    client: (options = {}) => new Client(url, options.ip),
    async close() {
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await app.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Form fields; an undefined value is left out, so optional fields can be written inline. */
type Fields = Record<string, string | number | undefined>;

function definedFields(fields: Fields): [string, string][] {
  return Object.entries(fields).flatMap(([k, v]): [string, string][] => (v === undefined ? [] : [[k, String(v)]]));
}
export interface FilePart {
  name: string;
  filename: string;
  type?: string;
  data: Buffer;
}

/** An HTTP client that keeps the `session` cookie like a browser would. */
export class Client {
  cookie = '';
  constructor(readonly base: string, readonly ip?: string) {}

  get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('GET', path, undefined, headers);
  }

  /** POST urlencoded fields (or nothing). */
  post(path: string, fields?: Fields, headers: Record<string, string> = {}): Promise<Answer> {
    const body = fields ? new URLSearchParams(definedFields(fields)).toString() : undefined;
    return this.send('POST', path, body, { ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers });
  }

  /** POST multipart/form-data with fields and files. */
  postMultipart(path: string, fields: Fields, files: FilePart[] = [], headers: Record<string, string> = {}): Promise<Answer> {
    const form = new FormData();
    for (const [k, v] of definedFields(fields)) form.append(k, v);
    for (const f of files) form.append(f.name, new Blob([f.data], { type: f.type ?? 'application/octet-stream' }), f.filename);
    return this.send('POST', path, form, headers);
  }

  async send(method: string, path: string, body: string | FormData | Buffer | undefined, headers: Record<string, string> = {}): Promise<Answer> {
    const all: Record<string, string> = { ...headers };
    if (this.cookie) all.cookie = `session=${this.cookie}`;
    if (this.ip) all['x-forwarded-for'] = this.ip;
    const res = await fetch(this.base + path, { method, body, headers: all, redirect: 'manual' });
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    if (setCookie) this.cookie = setCookie.slice('session='.length).split(';')[0]!;
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** Registers and logs in; returns the client for chaining. */
  async signUp(user: string, password = 'correct horse battery'): Promise<this> {
    const created = await this.post('/api/auth/newuser', { user, pass1: password, pass2: password });
    if (created.status !== 201) throw new Error(`signUp ${user}: ${created.status} ${created.text}`);
    const loggedIn = await this.post('/api/auth/login', { user, pass: password });
    if (loggedIn.status !== 200) throw new Error(`login ${user}: ${loggedIn.status} ${loggedIn.text}`);
    return this;
  }
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One request through node:http with the path sent exactly as given (fetch would normalise
 * `..`, `%2e` and backslashes) and any headers, Host and Origin included.
 */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

export interface AdminRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const adminBin = fileURLToPath(new URL('../bin/board-admin', import.meta.url));

/** Runs bin/board-admin as a real process against the board's data folder and origin. */
export function runAdmin(board: TestBoard, args: string[], env: Record<string, string> = {}): Promise<AdminRun> {
  const childEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('BOARD_')) childEnv[name] = value;
  Object.assign(childEnv, { BOARD_DATA: board.config.dataDir, BOARD_ORIGIN: board.config.origin }, env);
  return new Promise((resolve, reject) => {
    execFile(adminBin, args, { env: childEnv, timeout: 30_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
    });
  });
}

/** Creates a reset link with the admin CLI and returns its token (the part after `#`). */
export async function resetToken(board: TestBoard, username: string): Promise<string> {
  const run = await runAdmin(board, ['reset-link', username]);
  if (run.code !== 0) throw new Error(`reset-link ${username}: exit ${run.code} ${run.stderr}`);
  const match = /^(\S+)\/reset#([A-Za-z0-9_-]+)\n$/.exec(run.stdout);
  if (!match || match[1] !== board.config.origin) throw new Error(`reset-link printed ${JSON.stringify(run.stdout)}`);
  return match[2]!;
}

/** Every file under BOARD_DATA/media, as paths relative to media/. */
export function mediaFiles(board: TestBoard): string[] {
  const root = board.config.mediaDir;
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((p) => statSync(join(root, p)).isFile())
    .map((p) => p.split(sep).join('/'))
    .sort();
}
