import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { routes } from '../../lib/routes.ts';
import { assertError, limitsOff, password, startProxiedBoard, type Client, type TestBoard } from '../helpers.ts';
import { consistencyProblems } from '../helpers/consistency.ts';
import {
  fieldNames,
  fieldValues,
  multipart,
  pathValues,
  starValues,
  uploads,
  type Part,
  type Upload,
} from './fuzz-inputs.ts';
import { sendRaw, type RawExchange } from '../helpers/raw-http.ts';
import { prng, randomTools, recordSummary, scaled, seed } from './soak.ts';

const cases = scaled(1500, 30_000);
const parallel = 8;
/**
 * Short server timeouts: a request that stalls (Node never ends the body of an Upgrade request
 * with broken chunking, for one) is closed by requestTimeout, as in production after 60 s.
 * Anything still open after hangMs is a hang.
 */
const timeouts = { headersMs: 4000, requestMs: 8000 };
const hangMs = 20_000;

let board: TestBoard;
let port: number;
let files: Upload[];
let alice: Client;
let bob: Client;
const pids: number[] = [];

before(async () => {
  board = await startProxiedBoard(limitsOff, { timeouts });
  port = (board.app.server.address() as AddressInfo).port;
  files = await uploads();
  alice = await board.client({ ip: '203.0.113.1' }).signUp('Fuzz Alice', password);
  bob = await board.client({ ip: '203.0.113.2' }).signUp('Fuzz Bob', password);
  for (const [client, content, replyTo] of [
    [alice, 'first', 0],
    [bob, 'second', 0],
    [alice, 'a reply', 1],
    [bob, 'deeper', 3],
  ] as const) {
    const answer = await client.post('/api/entry/create', { content, reply_to: replyTo || undefined });
    assert.equal(answer.status, 201, answer.text);
    pids.push(answer.body.pid);
  }
});

after(() => board.close());

interface FuzzCase {
  label: string;
  method: string;
  path: string;
  request: Buffer;
  /** The request claims more body than it sends and half-closes: no answer is acceptable. */
  truncated: boolean;
  /** For directed cases: the answers allowed, as `status code` strings (e.g. '413 upload.too_large'). */
  expect?: string[];
}

const sessionHeaders = (cookie: string, n: number) => [
  `Host: 127.0.0.1:${port}`,
  `X-Forwarded-For: 10.250.${(n >> 8) & 255}.${n & 255}`,
  `Cookie: session=${cookie}`,
];

/**
 * Directed cases, sent before the random ones: every path parameter of every route with every
 * hostile path value, every hostile upload to create and to avatar with a valid session, and
 * every kind of broken multipart body to create.
 */
function directedCases(): FuzzCase[] {
  const list: FuzzCase[] = [];
  const add = (method: string, path: string, headers: string[], body: Body, expect?: string[]) => {
    const n = list.length;
    const all = [
      ...sessionHeaders(n % 2 ? alice.cookie : bob.cookie, n),
      ...headers,
      ...(body.contentType ? [`Content-Type: ${body.contentType}`] : []),
      `Content-Length: ${body.data.length}`,
    ];
    list.push({
      label: `directed ${n} ${method} ${path.slice(0, 80)} [${body.label}]`,
      method,
      path,
      request: head(method, path, all, body.data),
      truncated: false,
      expect,
    });
  };
  const none: Body = { label: 'none', data: Buffer.alloc(0) };
  for (const route of routes) {
    if (route.path === '/api/auth/logout') continue;
    const segments = route.path.split('/');
    segments.forEach((segment, i) => {
      if (!segment.startsWith(':') && segment !== '*') return;
      for (const value of segment === '*' ? starValues : pathValues) {
        const path = segments
          .map((s, j) => (j === i ? value : s.startsWith(':') ? (s === ':username' ? 'Fuzz%20Alice' : '1') : s))
          .join('/');
        add(route.method, path, [], none);
      }
    });
  }
  const boundary = '----directed';
  const tooLarge = ['413 upload.too_large'];
  const expected: Record<string, string[]> = {
    'png bomb 8000x8000 (valid)': tooLarge,
    'png claiming 30000x30000': [...tooLarge, '400 upload.bad_type'],
    'gif claiming 65535x65535': [...tooLarge, '400 upload.bad_type'],
    'jpeg claiming 65500x65500': [...tooLarge, '400 upload.bad_type'],
    'text as jpg': ['400 upload.bad_type'],
    'truncated jpeg': ['400 upload.bad_type', '201 -', '200 -'],
    'png header with garbage': ['400 upload.bad_type'],
    'svg with script': ['400 upload.bad_type'],
    'gif/html polyglot': ['400 upload.bad_type'],
    html: ['400 upload.bad_type'],
    '1 MB noise': ['400 upload.bad_type'],
  };
  for (const upload of files) {
    const part = (name: string): Part => ({ name, filename: upload.filename, type: upload.type, value: upload.data });
    const multi = (parts: Part[]): Body => ({
      label: `multipart ${upload.label}`,
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(boundary, parts),
    });
    add(
      'POST',
      '/api/entry/create',
      [],
      multi([{ name: 'content', value: 'with a file' }, part('file')]),
      expected[upload.label],
    );
    add('POST', '/api/user/avatar', [], multi([part('avatar')]), expected[upload.label]);
  }
  for (let i = 0; i < 12; i++) add('POST', '/api/entry/create', [], brokenMultipart(i, boundary));
  return list;
}

/** Builds one seeded case: a route from lib/routes.ts (or a stray path), a method, hostile path parameters, headers and a body. */
function makeCase(n: number): FuzzCase {
  const r = randomTools(prng(seed * 7919 + n));
  const route = r.pick(routes);
  const path = r.chance(0.08)
    ? r.pick([
        '/api',
        '/api/',
        '/api/../board.db',
        '/api/entry',
        '/api/entry/',
        '/api/entry/1/',
        '/api//entry/1/thread',
        '/static/media/../../board.db',
        '/%2e%2e/%2e%2e/etc/passwd',
        '//api/health',
        '/api/health/..%2f..%2f',
        '/api/u//info',
        '*',
        'http://evil.example/api/health',
        '/api/entry/1/thread?x=%ff&x=1',
        '/e/1%00',
        '/u/..%2f..%2f',
      ])
    : fillPath(route.path, r);
  const query = r.chance(0.1)
    ? `?${r.pick(['pids=', 'pids=1,2,3', 'pids=-1', 'pids=1,,2', `pids=${'1,'.repeat(200)}1`, 'pids=%ff', 'pids=1&pids=2', 'a=%00', `x=${'y'.repeat(9000)}`])}`
    : '';
  const method = r.chance(0.85)
    ? route.method
    : r.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'FOO', 'get', 'CONNECT']);

  const headers: string[] = [];
  if (!r.chance(0.03))
    headers.push(
      `Host: ${r.chance(0.9) ? `127.0.0.1:${port}` : r.pick(['evil.example', '', 'a'.repeat(300), '127.0.0.1:1'])}`,
    );
  headers.push(
    `X-Forwarded-For: ${r.chance(0.9) ? `10.${r.int(0, 255)}.${r.int(0, 255)}.${r.int(1, 254)}` : r.pick(['', 'garbage', '::1', '1.2.3.4, 5.6.7.8', '256.256.256.256', 'a'.repeat(2000)])}`,
  );
  // A valid session most of the time, except on the two routes that would end it.
  const mayUseSession = route.path !== '/api/auth/logout';
  const cookieRoll = r.random();
  if (cookieRoll < 0.6 && mayUseSession) headers.push(`Cookie: session=${r.chance(0.5) ? alice.cookie : bob.cookie}`);
  else if (cookieRoll < 0.8)
    headers.push(
      `Cookie: ${r.pick(['session=', 'session=../../x', `session=${'A'.repeat(43)}`, 'session=%00', `session=${'x'.repeat(5000)}`, 'a=b; session=1; session=2', '=;;=;'])}`,
    );
  if (r.chance(0.08))
    headers.push(`Origin: ${r.pick(['null', 'http://evil.example', `http://127.0.0.1:${port}`, 'garbage', ''])}`);
  if (r.chance(0.04))
    headers.push(
      r.pick([
        'Expect: 100-continue',
        'Expect: something-else',
        'Upgrade: websocket\r\nConnection: Upgrade',
        'Transfer-Encoding: gzip',
        `X-Very-Long: ${'v'.repeat(20_000)}`,
      ]),
    );

  const body = makeBody(r, route.path);
  let request: Buffer;
  let truncated = false;
  if (body.contentType !== undefined) headers.push(`Content-Type: ${body.contentType}`);
  const framing = r.random();
  if (body.data.length > 0 && framing < 0.08) {
    // Content-Length larger than what is sent, then the client stops (half-close).
    truncated = true;
    const cut = r.int(0, body.data.length - 1);
    request = head(
      method,
      path + query,
      [...headers, `Content-Length: ${body.data.length + r.int(1, 1000)}`],
      body.data.subarray(0, cut),
    );
  } else if (body.data.length > 0 && framing < 0.14) {
    request = head(method, path + query, [...headers, 'Transfer-Encoding: chunked'], chunked(body.data, r.chance(0.3)));
  } else if (framing < 0.18) {
    const odd = r.pick([
      'Content-Length: -1',
      'Content-Length: abc',
      'Content-Length: 1e3',
      `Content-Length: ${body.data.length}\r\nContent-Length: ${body.data.length + 1}`,
      `Content-Length: ${body.data.length}\r\nTransfer-Encoding: chunked`,
      'Content-Length: 99999999999999999999',
      `Content-Length: ${Math.max(0, body.data.length - 3)}`,
    ]);
    request = head(method, path + query, [...headers, odd], body.data);
  } else {
    request = head(method, path + query, [...headers, `Content-Length: ${body.data.length}`], body.data);
  }
  return {
    label: `#${n} ${method} ${path.slice(0, 80)}${query.slice(0, 30)} [${body.label}]`,
    method,
    path: path + query,
    request,
    truncated,
  };
}

function fillPath(template: string, r: ReturnType<typeof randomTools>): string {
  return template
    .split('/')
    .map((segment) => {
      if (segment === '*') return r.pick(starValues);
      if (!segment.startsWith(':')) return segment;
      if (r.chance(0.35)) {
        if (segment === ':username') return encodeURIComponent(r.pick(['Fuzz Alice', 'fuzz bob', 'nobody']));
        if (segment === ':page') return String(r.int(0, 101));
        return String(r.pick([...pids, 0, 999_999]));
      }
      return r.pick(pathValues);
    })
    .join('/');
}

interface Body {
  label: string;
  contentType?: string;
  data: Buffer;
}

/** A body of one of many kinds: none, urlencoded (odd values, raw invalid UTF-8, duplicates, 1 MB), multipart (files, broken), wrong types. */
function makeBody(r: ReturnType<typeof randomTools>, routePath: string): Body {
  const kind = r.int(0, 11);
  const someFields = (): [string, string][] =>
    Array.from({ length: r.int(0, 5) }, () => [
      r.chance(0.7) ? r.pick(fieldNames.slice(0, 10)) : r.pick(fieldNames),
      r.pick(fieldValues),
    ]);
  const boundary = `----fuzz${r.int(0, 1e9)}`;
  switch (kind) {
    case 0:
      return {
        label: 'none',
        data: Buffer.alloc(0),
        contentType: r.chance(0.5) ? undefined : 'application/x-www-form-urlencoded',
      };
    case 1:
    case 2: {
      const fields = someFields();
      if (r.chance(0.3) && fields.length) fields.push([fields[0]![0], r.pick(fieldValues)]); // duplicate field
      return {
        label: 'urlencoded',
        contentType: r.pick([
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded; charset=utf-16',
          'APPLICATION/X-WWW-FORM-URLENCODED',
        ]),
        data: Buffer.from(new URLSearchParams(fields).toString()),
      };
    }
    case 3: {
      // Raw bytes no encoder would produce: invalid UTF-8, NUL, lone continuation bytes, overlong forms.
      const raw = Buffer.concat([
        Buffer.from(`${r.pick(fieldNames.slice(0, 10))}=`),
        Buffer.from(
          r.pick([
            [0xff, 0xfe],
            [0xc0, 0xaf],
            [0x80],
            [0xed, 0xa0, 0x80],
            [0x00, 0x00],
            [0xf8, 0x88, 0x80, 0x80, 0x80],
          ]),
        ),
        Buffer.from('&mode=yes&content=%ff%fe%00'),
      ]);
      return { label: 'invalid utf-8', contentType: 'application/x-www-form-urlencoded', data: raw };
    }
    case 4:
      return {
        label: '1 MB field',
        contentType: r.chance(0.5) ? 'application/x-www-form-urlencoded' : `multipart/form-data; boundary=${boundary}`,
        data: r.chance(0.5)
          ? Buffer.from(`content=${'a'.repeat(1024 * 1024)}`)
          : multipart(boundary, [{ name: 'content', value: 'b'.repeat(1024 * 1024) }]),
      };
    case 5:
    case 6:
    case 7: {
      const fileField =
        routePath === '/api/user/avatar' ? 'avatar' : r.chance(0.8) ? 'file' : r.pick(['avatar', 'content', 'file[]']);
      const parts: Part[] = someFields().map(([name, value]) => ({ name, value }));
      const upload = r.pick(files);
      if (r.chance(0.8))
        parts.push({ name: fileField, filename: upload.filename, type: upload.type, value: upload.data });
      if (r.chance(0.1))
        parts.push({ name: fileField, filename: 'second.png', type: 'image/png', value: r.pick(files).data }); // duplicate file
      return {
        label: `multipart ${upload.label}`,
        contentType: `multipart/form-data; boundary=${boundary}`,
        data: multipart(boundary, parts),
      };
    }
    case 8:
      return brokenMultipart(r.int(0, 11), boundary, r);
    case 9:
      return r.pick<Body>([
        {
          label: 'json',
          contentType: 'application/json',
          data: Buffer.from('{"content":"hello","mode":"yes","user":"x"}'),
        },
        { label: 'text/plain', contentType: 'text/plain', data: Buffer.from('content=hello') },
        {
          label: 'xml',
          contentType: 'application/xml',
          data: Buffer.from('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'),
        },
        { label: 'no type', data: Buffer.from('content=hello&mode=yes') },
        { label: 'garbage type', contentType: ';;;/\u0001', data: Buffer.from('x') },
        { label: 'octet-stream', contentType: 'application/octet-stream', data: files[0]!.data },
      ]);
    case 10:
      return {
        label: 'many fields',
        contentType: 'application/x-www-form-urlencoded',
        data: Buffer.from(Array.from({ length: 5000 }, (_, i) => `f${i}=${i}`).join('&')),
      };
    default:
      return {
        label: 'random bytes',
        contentType: r.pick(['application/x-www-form-urlencoded', `multipart/form-data; boundary=${boundary}`]),
        data: Buffer.from(Array.from({ length: r.int(1, 3000) }, () => r.int(0, 255))),
      };
  }
}

/** Broken multipart bodies: no or wrong boundary, unclosed, odd or huge part headers, too many parts or files, garbage, nesting. */
function brokenMultipart(which: number, boundary: string, r = randomTools(prng(seed + which))): Body {
  const valid = multipart(boundary, [
    { name: 'content', value: 'broken?' },
    { name: 'file', filename: 'x.png', type: 'image/png', value: r.pick(files).data },
  ]);
  const variants: Body[] = [
    { label: 'multipart without boundary', contentType: 'multipart/form-data', data: valid },
    { label: 'multipart wrong boundary', contentType: 'multipart/form-data; boundary=other', data: valid },
    {
      label: 'multipart unclosed',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(boundary, [{ name: 'content', value: 'x' }], false),
    },
    {
      label: 'multipart part without disposition',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(boundary, [{ name: '', rawHeaders: 'Content-Type: text/plain', value: 'x' }]),
    },
    {
      label: 'multipart odd disposition',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(boundary, [
        {
          name: '',
          rawHeaders:
            'Content-Disposition: form-data; name="content\u0000"; filename*=UTF-8\'\'%ff%fe; filename="../../x"',
          value: 'x',
        },
      ]),
    },
    {
      label: 'multipart 200 parts',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(
        boundary,
        Array.from({ length: 200 }, (_, i) => ({ name: `f${i}`, value: 'v' })),
      ),
    },
    {
      label: 'multipart 10 files',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(
        boundary,
        Array.from({ length: 10 }, () => ({
          name: 'file',
          filename: 'a.png',
          type: 'image/png',
          value: files[1]!.data,
        })),
      ),
    },
    {
      label: 'multipart huge part header',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(boundary, [
        {
          name: '',
          rawHeaders: `Content-Disposition: form-data; name="content"\r\nX-Pad: ${'p'.repeat(100_000)}`,
          value: 'x',
        },
      ]),
    },
    {
      label: 'multipart long boundary',
      contentType: `multipart/form-data; boundary=${'b'.repeat(300)}`,
      data: multipart('b'.repeat(300), [{ name: 'content', value: 'x' }]),
    },
    {
      label: 'multipart garbage',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: Buffer.from(`--${boundary}\r\n\r\n\r\n--${boundary}\u0000--\r\n`.repeat(r.int(1, 50))),
    },
    {
      label: 'multipart nested mixed',
      contentType: `multipart/form-data; boundary=${boundary}`,
      data: multipart(boundary, [
        {
          name: '',
          rawHeaders: `Content-Disposition: form-data; name="file"\r\nContent-Type: multipart/mixed; boundary=inner`,
          value: multipart('inner', [{ name: 'file', filename: 'a.png', value: files[1]!.data }]),
        },
      ]),
    },
    {
      label: 'multipart quoted boundary',
      contentType: `multipart/form-data; boundary="${boundary}"; charset=latin1`,
      data: valid,
    },
  ];
  return variants[which % variants.length]!;
}

function head(method: string, target: string, headers: string[], body: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`${method} ${target} HTTP/1.1\r\n${[...headers, 'Connection: close'].join('\r\n')}\r\n\r\n`, 'latin1'),
    body,
  ]);
}

function chunked(data: Buffer, broken: boolean): Buffer {
  const chunks: Buffer[] = [];
  for (let i = 0; i < data.length; i += 1000) {
    const piece = data.subarray(i, i + 1000);
    chunks.push(Buffer.from(`${broken ? 'zz' : piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(chunks);
}

/** Whether the server's router sees this target as an /api path (it resolves dot segments like a URL). */
function isExportTarget(target: string): boolean {
  return new URL(`http://board.invalid${target.startsWith('/') ? '' : '/'}${target}`).pathname === '/api/user/export';
}

function isApiTarget(target: string): boolean {
  try {
    const { pathname } = new URL(`http://board.invalid${target.startsWith('/') ? '' : '/'}${target}`);
    return pathname === '/api' || pathname.startsWith('/api/');
  } catch {
    return false;
  }
}

/** The server's open connections, once they have settled (polled for up to 5 s). */
async function openConnections(): Promise<number> {
  let count = -1;
  for (let i = 0; i < 50 && count !== 0; i++) {
    count = await new Promise<number>((resolve) => board.app.server.getConnections((_, n) => resolve(n)));
    if (count) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return count;
}

/** What is wrong with one answer, or undefined. */
function judge(c: FuzzCase, answer: RawExchange): string | undefined {
  if (answer.hung) return `no answer and no close within ${hangMs / 1000} s (a hang)`;
  if (c.expect) {
    let code = '-';
    try {
      code = JSON.parse(answer.body.toString('utf8'))?.error?.code ?? '-';
    } catch {
      // not JSON: the checks below say so
    }
    if (!c.expect.includes(`${answer.status} ${code}`))
      return `answered ${answer.status} ${code}, expected one of ${c.expect.join(', ')}`;
  }
  // Node closes CONNECT requests itself when nobody listens for tunnels: a close, not a hang.
  if (answer.status === 0)
    return c.truncated || c.method === 'CONNECT' ? undefined : 'the connection closed without an answer';
  if (answer.status >= 500) return `status ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`;
  if (answer.body.includes('SQLite format') || answer.body.includes('pass_hash'))
    return 'the answer leaks the database';
  const isJson = (answer.headers['content-type'] ?? '').startsWith('application/json');
  if (c.method === 'HEAD') return undefined;
  if (answer.status >= 400 && (isApiTarget(c.path) || isJson)) {
    if (!isJson) return `error ${answer.status} on an /api path is not JSON (${answer.headers['content-type']})`;
    let body: { error?: { code?: unknown; message?: unknown } };
    try {
      body = JSON.parse(answer.body.toString('utf8'));
    } catch {
      return `error ${answer.status} body is not JSON: ${answer.body.toString('utf8').slice(0, 200)}`;
    }
    if (typeof body.error?.code !== 'string' || !/^[a-z_]+(\.[a-z_]+)?$/.test(body.error.code))
      return `error without a code: ${answer.body.toString('utf8').slice(0, 200)}`;
    if (typeof body.error.message !== 'string' || body.error.message.length === 0)
      return `error without a message: ${answer.body.toString('utf8').slice(0, 200)}`;
  } else if (answer.status < 300 && isApiTarget(c.path) && c.method !== 'HEAD') {
    // The data export is the one API answer that is a file (docs/API.md "GET /api/user/export"): then a zip, and only there.
    if (answer.headers['content-type'] === 'application/zip') {
      return isExportTarget(c.path) && answer.body.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))
        ? undefined
        : `a ${answer.status} zip answer that is not the data export's`;
    }
    try {
      JSON.parse(answer.body.toString('utf8'));
    } catch {
      return `a ${answer.status} answer on an /api path is not JSON`;
    }
  }
  return undefined;
}

test(`${cases} seeded hostile requests against every route: never a 500, never a hang, always the error shape`, {
  timeout: scaled(240_000, 3_600_000),
}, async () => {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  let sent = 0;
  // FUZZ_CASE=12,345 replays single random cases and prints what went over the wire.
  const only = process.env.FUZZ_CASE?.split(',').map(Number);
  const directed = only ? [] : directedCases();
  const numbers = only ?? Array.from({ length: cases - directed.length }, (_, i) => i);
  const total = directed.length + numbers.length;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const c = i < directed.length ? directed[i]! : makeCase(numbers[i - directed.length]!);
      const answer = await sendRaw(port, c.request, {
        endAfterSend: c.truncated,
        headOnly: c.method === 'HEAD',
        timeoutMs: hangMs,
      });
      if (only)
        console.log(
          `${c.label}\n--- sent:\n${c.request.subarray(0, 2000).toString('latin1')}\n--- answer: ${JSON.stringify({ ...answer, body: answer.body.toString('utf8').slice(0, 500) })}`,
        );
      sent++;
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const problem = judge(c, answer);
      if (problem && failures.length < 30) failures.push(`${c.label}: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));

  // Requests that got no answer (truncated ones) still went through the log: no 500 there either.
  const logged500 = board.logs.filter((line) => / 5\d\d [\d.]+ms$/.test(line) || line.startsWith('error '));
  const serverErrors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
  console.log(
    `fuzz: seed ${seed}, ${sent} cases, answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`,
  );
  recordSummary({
    fuzzCases: sent,
    serverErrors: serverErrors + logged500.filter((line) => !line.startsWith('error ')).length,
  });
  assert.deepEqual(failures, []);
  assert.deepEqual(logged500.slice(0, 10), [], 'no 500 and no logged error, answered or not');

  // No connection is left behind, and afterwards the board answers normally and its data is whole.
  assert.equal(await openConnections(), 0, 'every fuzz connection was closed');
  assert.deepEqual((await board.client().get('/api/health')).body, { status: 'ok' });
  assert.equal((await board.client().get('/api/entry/feed/0')).status, 200);
  const fresh = await board.client({ ip: '203.0.113.9' }).signUp('After Fuzz', password);
  const created = await fresh.post('/api/entry/create', { content: 'still standing' });
  assert.equal(created.status, 201, created.text);
  assert.equal((await fresh.get(`/api/entry/${created.body.pid}/thread`)).body.entry.content, 'still standing');
  assert.deepEqual(consistencyProblems(board.app.services.db.raw), []);
});

/** A raw exchange as the error assertion reads it. */
const asAnswer = (exchange: RawExchange) => ({
  status: exchange.status,
  headers: exchange.headers,
  text: exchange.body.toString('utf8'),
});

test('an HTTP/1.1 request without Host answers 400 in the JSON error shape (Node alone would send an empty body)', async () => {
  const answer = await sendRaw(port, Buffer.from('GET /api/health HTTP/1.1\r\nConnection: close\r\n\r\n'));
  assertError(asAnswer(answer), 400, 'input.invalid');
  const old = await sendRaw(port, Buffer.from('GET /api/health HTTP/1.0\r\n\r\n'));
  assert.equal(old.status, 200, 'HTTP/1.0 has no Host header and is still served');
});

test('an Expect header the server cannot meet answers 417 in the JSON error shape; 100-continue works', async () => {
  const body = 'content=expecting';
  const odd = await sendRaw(
    port,
    Buffer.from(
      `POST /api/entry/1/report HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    ),
  );
  assertError(asAnswer(odd), 417, 'input.invalid');
  const entry = await alice.post('/api/entry/create', { content: 'report me politely' });
  const normal = await sendRaw(
    port,
    Buffer.from(
      `POST /api/entry/${entry.body.pid}/report HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.99.0.1\r\nExpect: 100-continue\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 8\r\nConnection: close\r\n\r\nreason=x`,
    ),
  );
  assert.equal(normal.status, 200, normal.body.toString('utf8'));
});
