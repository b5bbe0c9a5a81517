import type { IncomingMessage, ServerResponse } from 'node:http';
import { findLiveSession, findSessionByToken, type Session } from '../sessions.ts';
import { findUserById, moderatorRole, type User } from '../users.ts';
import type { Services } from '../services.ts';
import { readForm, type Form } from './body.ts';
import { clientIp } from './client-ip.ts';
import { parseCookies } from './cookies.ts';
import { ApiError } from './errors.ts';

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

/** Who is calling: the live session, or 401 auth.required. The first line of every handler that needs one. */
export function requireUser(ctx: Ctx): Session {
  const session = ctx.session();
  if (!session) throw new ApiError(401, 'auth.required');
  return session;
}

/**
 * requireUser again, inside the transaction of a write that awaited something after it (the body,
 * a hash): the session may have been ended or its account banned meanwhile, and that must stand.
 */
export function requireUserStill(ctx: Ctx, session: Session): void {
  if (!findLiveSession(ctx.app.db, session.id, ctx.app.clock.now())) throw new ApiError(401, 'auth.required');
}

/**
 * A moderator's session, or 401 auth.required / 403 mod.required. The pipeline calls it for
 * every `mod` route right after the session check; handlers call it first to learn who acts.
 */
export function requireModerator(ctx: Ctx): User {
  const session = requireUser(ctx);
  const user = findUserById(ctx.app.db, session.uid);
  if (user?.role !== moderatorRole) throw new ApiError(403, 'mod.required');
  return user;
}

/** Urlencoded bodies over 64 KiB answer 413 (docs/API.md "Bodies: 413 and 415"). */
const urlencodedLimit = 64 * 1024;

/** Builds a request's context; the session, the body and the abort signal are made on first use. */
export function makeContext(app: Services, req: IncomingMessage, res: ServerResponse, url: URL): Ctx {
  let session: Session | undefined | null = null;
  let form: Promise<Form> | undefined;
  let aborter: AbortController | undefined;
  const cookies = parseCookies(req.headers.cookie);
  return {
    app, req, res, url, cookies,
    params: {},
    ip: clientIp(req, app.config.trustProxy),
    session() {
      if (session === null) session = cookies.session ? findSessionByToken(app.db, cookies.session, app.clock.now()) : undefined;
      return session;
    },
    form() {
      form ??= readForm(req, { maxMultipart: app.config.maxUpload, maxUrlencoded: urlencodedLimit });
      return form;
    },
    setCookie(cookie) {
      const previous = res.getHeader('Set-Cookie');
      res.setHeader('Set-Cookie', [...(Array.isArray(previous) ? previous : []), cookie]);
    },
    get signal() {
      if (!aborter) {
        const controller = new AbortController();
        res.once('close', () => {
          if (!res.writableFinished) controller.abort(new ClientGone('client went away'));
        });
        aborter = controller;
      }
      return aborter.signal;
    },
  };
}
