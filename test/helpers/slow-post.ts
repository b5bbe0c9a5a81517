import { request } from 'node:http';
import type { TestBoard } from './board.ts';
import type { Client, RawAnswer } from './client.ts';

/** A POST on its way: the board has its headers, the test sends the body when it likes. */
export interface SlowPost {
  /** Settles once the board has the request: its session is looked up and the handler waits for the body. */
  started: Promise<void>;
  /** Sends the body. */
  finish(): void;
  answer: Promise<RawAnswer>;
}

/**
 * A urlencoded POST as `client` whose body (`fields`) comes only at `finish()`. `started` settles
 * at the server's 'request' event: the pipeline's listener runs first and synchronously up to the
 * handler's first await, the body read, so the test acts in between without any timing.
 */
export function slowPost(
  board: TestBoard,
  client: Client,
  path: string,
  fields: Record<string, string> = { x: '1' },
): SlowPost {
  const body = new URLSearchParams(fields).toString();
  const started = new Promise<void>((resolve) => board.app.server.once('request', () => resolve()));
  const req = request(`${board.url}${path}`, {
    method: 'POST',
    headers: {
      cookie: `session=${client.cookie}`,
      'x-forwarded-for': client.ip!,
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(body)),
    },
  });
  const answer = new Promise<RawAnswer>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res
        .setEncoding('utf8')
        .on('data', (chunk: string) => {
          text += chunk;
        })
        .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
  });
  req.flushHeaders();
  return { started, answer, finish: () => req.end(body) };
}
