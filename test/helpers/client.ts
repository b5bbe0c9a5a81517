import { request as httpRequest } from 'node:http';
import { Agent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { password } from './members.ts';
import { hangBoundMs } from './hang-bound.ts';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
  /** What was asked, so an answer can be checked against its route's OpenAPI entry (assertDocumented). */
  request?: { method: string; path: string };
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

/**
 * A fresh connection for every request. A kept-alive one races the server's idle timeout: a test
 * that holds the event loop longer than that (building a large account row by row on a loaded
 * machine) sends its next request on a socket the server closes in the same turn, ECONNRESET.
 */
const connectionPerRequest = new Agent({ pipelining: 0 });

/**
 * An HTTP client that keeps the `session` cookie like a browser would. `dispatcher`: an undici
 * Client holding one connection, so every request reaches the same cluster worker (test/cluster/).
 */
export class Client {
  cookie = '';
  readonly base: string;
  readonly ip?: string;
  readonly dispatcher?: Dispatcher;
  constructor(base: string, ip?: string, dispatcher?: Dispatcher) {
    this.base = base;
    this.ip = ip;
    this.dispatcher = dispatcher;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('GET', path, undefined, headers);
  }

  /** POST urlencoded fields (or nothing). */
  post(path: string, fields?: Fields, headers: Record<string, string> = {}): Promise<Answer> {
    const body = fields ? new URLSearchParams(definedFields(fields)).toString() : undefined;
    return this.send('POST', path, body, {
      ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      ...headers,
    });
  }

  /** POST multipart/form-data with fields and files. */
  postMultipart(
    path: string,
    fields: Fields,
    files: FilePart[] = [],
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const form = new FormData();
    for (const [k, v] of definedFields(fields)) form.append(k, v);
    for (const f of files)
      form.append(f.name, new Blob([f.data], { type: f.type ?? 'application/octet-stream' }), f.filename);
    return this.send('POST', path, form, headers);
  }

  async send(
    method: string,
    path: string,
    body: string | FormData | Buffer | undefined,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const all: Record<string, string> = { ...headers };
    if (this.cookie) all.cookie = `session=${this.cookie}`;
    if (this.ip) all['x-forwarded-for'] = this.ip;
    const init = { method, body, headers: all, redirect: 'manual' as const };
    const res = this.dispatcher
      ? ((await undiciFetch(this.base + path, { ...init, dispatcher: this.dispatcher } as Parameters<
          typeof undiciFetch
        >[1])) as unknown as Response)
      : await fetch(this.base + path, { ...init, dispatcher: connectionPerRequest } as RequestInit);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    if (setCookie) this.cookie = setCookie.slice('session='.length).split(';')[0]!;
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed, text, request: { method, path } };
  }

  /** Registers and logs in (a session of the default day); returns the client for chaining. */
  async signUp(user: string, pass = password): Promise<this> {
    const created = await this.post('/api/auth/newuser', { user, pass1: pass, pass2: pass });
    if (created.status !== 201) throw new Error(`signUp ${user}: ${created.status} ${created.text}`);
    const loggedIn = await this.post('/api/auth/login', { user, pass });
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
export function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, method, path, headers, agent: false, timeout: hangBoundMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within ${hangBoundMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}
