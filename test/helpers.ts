import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../lib/app.ts';
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

/**
 * Starts the real server on port 0 with a temporary BOARD_DATA, cheap scrypt and a movable clock.
 * `env` adds BOARD_* variables, exactly as a sysadmin would set them.
 */
export async function startBoard(env: Record<string, string> = {}): Promise<TestBoard> {
  const dataDir = mkdtempSync(join(tmpdir(), 'board-test-'));
  const config = loadConfig({ BOARD_DATA: dataDir, PORT: '0', BOARD_SCRYPT_LOGN: '14', BOARD_PREVIEW: '0', ...env });
  prepareDataDir(config);
  const clock = movableClock();
  const logs: string[] = [];
  const app = createApp(config, { clock, log: (line) => logs.push(line) });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url, app, config, clock, logs,
    client: (options = {}) => new Client(url, options.ip),
    async close() {
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

type Fields = Record<string, string | number>;
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
    const body = fields ? new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString() : undefined;
    return this.send('POST', path, body, { ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers });
  }

  /** POST multipart/form-data with fields and files. */
  postMultipart(path: string, fields: Fields, files: FilePart[] = [], headers: Record<string, string> = {}): Promise<Answer> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
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
