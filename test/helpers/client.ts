import { request as httpRequest, type IncomingMessage } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
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
 * The headers fetch adds by itself: a request through node:http carries them too, so the board
 * sees what it saw from fetch.
 */
const fetchDefaults: Record<string, string> = {
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
  'user-agent': 'node',
  'accept-encoding': 'gzip, deflate',
};

/**
 * One request on a fresh connection (`agent: false`). A kept-alive one races the server's idle
 * timeout: a test that holds the event loop longer than that (building a large account row by row
 * on a loaded machine) sends its next request on a socket the server closes in the same turn,
 * ECONNRESET. node:http rather than fetch: fetch's agent makes an error for every connection it
 * closes, and Node formats each one's stack through the source maps, which cost more than the
 * request. A body goes through a Request, which encodes it and sets its type as fetch does.
 */
async function requestOnce(
  url: string,
  init: { method: string; body: string | FormData | Buffer | undefined; headers: Record<string, string> },
): Promise<{ status: number; headers: Headers; text: string }> {
  const request = init.body === undefined ? undefined : new Request(url, init);
  const body = request && Buffer.from(await request.arrayBuffer());
  const headers: Record<string, string> = { ...fetchDefaults };
  new Headers(request?.headers ?? init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  if (body) headers['content-length'] = String(body.length);
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: target.port,
        method: request?.method ?? init.method.toUpperCase(),
        path: target.pathname + target.search,
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, headers: headersOf(res), text: textOf(res, Buffer.concat(chunks)) });
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return headers;
}

/** The body as fetch's text() gives it: decompressed, decoded as UTF-8 without a BOM. */
function textOf(res: IncomingMessage, raw: Buffer): string {
  const encoding = res.headers['content-encoding']?.trim().toLowerCase();
  const bytes =
    !raw.length || !encoding || encoding === 'identity'
      ? raw
      : encoding === 'gzip' || encoding === 'x-gzip'
        ? gunzipSync(raw)
        : encoding === 'deflate'
          ? (raw[0]! & 0x0f) === 8
            ? inflateSync(raw)
            : inflateRawSync(raw)
          : encoding === 'br'
            ? brotliDecompressSync(raw)
            : raw;
  return new TextDecoder().decode(bytes);
}

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
    const init = { method, body, headers: all };
    let res: { status: number; headers: Headers; text: string };
    if (this.dispatcher) {
      const answer = (await undiciFetch(this.base + path, {
        ...init,
        redirect: 'manual',
        dispatcher: this.dispatcher,
      } as Parameters<typeof undiciFetch>[1])) as unknown as Response;
      res = { status: answer.status, headers: answer.headers, text: await answer.text() };
    } else res = await requestOnce(this.base + path, init);
    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith('session='));
    if (setCookie) this.cookie = setCookie.slice('session='.length).split(';')[0]!;
    const text = res.text;
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
