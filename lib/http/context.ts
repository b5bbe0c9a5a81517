import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AsnDb } from '../asn.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db.ts';
import type { ImpressionTally } from '../impressions.ts';
import type { PreviewQueue } from '../preview/queue.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { Session } from '../sessions.ts';
import type { TorExitList } from '../tor.ts';
import type { Form } from './body.ts';

/** Long-lived things every handler may use, built once by createApp. */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  limiter: RateLimiter;
  tor: TorExitList;
  log: (line: string) => void;
  /** IP-to-ASN lookups for the statistics, loaded in the background. */
  asn: AsnDb;
  /** Impressions and visitors counted in memory, flushed every few seconds. */
  impressions: ImpressionTally;
  /** The link-preview queue; absent when BOARD_PREVIEW=0. */
  previews?: PreviewQueue;
}

/** One request as a handler sees it. */
export interface Ctx {
  app: Services;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  /** Client address, for rate limits, Tor and visitor hashing only: never stored or logged. */
  ip: string;
  cookies: Record<string, string>;
  /** The caller's live session, looked up once on first use. */
  session(): Session | undefined;
  /** The request body as a form, read once with the configured limits. */
  form(): Promise<Form>;
  setCookie(cookie: string): void;
  /** Aborts when the client goes away before its answer is written (skips queued hashing). */
  readonly signal: AbortSignal;
}

export type Handler = (ctx: Ctx) => unknown;

/** The reason ctx.signal aborts with: nobody is left to answer, so it is neither answered nor logged. */
export class ClientGone extends Error {}

/** A handler's answer when it is not a plain 200 JSON body. */
export class Reply {
  constructor(readonly status: number, readonly body: unknown, readonly headers: Record<string, string> = {}) {}
}

export const created = (body: unknown) => new Reply(201, body);
