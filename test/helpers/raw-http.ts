import { connect } from 'node:net';
import { hangBoundMs } from './hang-bound.ts';

export interface RawExchange {
  /** 0 when the server closed the connection without an answer. */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** No answer and no close within the time limit. */
  hung: boolean;
}

export interface RawSendOptions {
  /** Milliseconds to wait for the answer (or the close). */
  timeoutMs?: number;
  /** Half-close after sending (the request claims more bytes than it sends, then stops). */
  endAfterSend?: boolean;
  /** The answer has no body even with a Content-Length (HEAD). */
  headOnly?: boolean;
}

/**
 * Sends bytes exactly as given over a fresh TCP connection and reads one HTTP answer (skipping
 * 1xx), so nothing on the way normalises a path, a header or a body. Never rejects: a refused
 * connection or a close without an answer is status 0; no answer in time is `hung`.
 */
export function sendRaw(port: number, request: Buffer, options: RawSendOptions = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (result: RawExchange) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(
      () => finish({ ...(parse(received, options.headOnly, true) ?? noAnswer()), hung: true }),
      options.timeoutMs ?? hangBoundMs,
    );
    socket.on('connect', () => {
      socket.write(request);
      if (options.endAfterSend) socket.end();
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = parse(received, options.headOnly, false);
      if (answer) finish(answer);
    });
    socket.on('error', () => finish(parse(received, options.headOnly, true) ?? noAnswer()));
    // The server's FIN (it closed its side) ends the answer even though we may keep ours open.
    socket.on('end', () => finish(parse(received, options.headOnly, true) ?? noAnswer()));
    socket.on('close', () => finish(parse(received, options.headOnly, true) ?? noAnswer()));
  });
}

function noAnswer(): RawExchange {
  return { status: 0, headers: {}, body: Buffer.alloc(0), hung: false };
}

/** One complete answer from the bytes so far, or undefined (with `closed`, whatever arrived). */
function parse(data: Buffer, headOnly: boolean | undefined, closed: boolean): RawExchange | undefined {
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const lines = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!)?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyStart = end + 4;
    if (status >= 100 && status < 200) {
      rest = rest.subarray(bodyStart);
      continue;
    }
    const length = headOnly
      ? 0
      : headers['content-length'] !== undefined
        ? Number(headers['content-length'])
        : undefined;
    const body = rest.subarray(bodyStart);
    if (headers['transfer-encoding'] === 'chunked' && !headOnly) {
      const decoded = unchunk(body);
      if (decoded) return { status, headers, body: decoded, hung: false };
      return closed ? { status, headers, body, hung: false } : undefined;
    }
    if (length !== undefined && body.length >= length)
      return { status, headers, body: body.subarray(0, length), hung: false };
    return closed ? { status, headers, body, hung: false } : undefined;
  }
}

/** A whole chunked body, decoded; undefined while the last chunk has not arrived. */
function unchunk(data: Buffer): Buffer | undefined {
  const pieces: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size)) return undefined;
    if (size === 0) return Buffer.concat(pieces);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    pieces.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
