import type { IncomingMessage, ServerResponse } from 'node:http';
import { findSessionByToken, liveSessionRole, type LiveSession } from '../accounts/sessions.ts';
import { accountStanding, type AccountStanding } from '../accounts/standing.ts';
import { findUserById, moderatorRole, type User } from '../accounts/users.ts';
import type { Services } from '../services.ts';
import { readForm, type Form } from './body.ts';
import { clientIp } from './client-ip.ts';
import { parseCookies } from './cookies.ts';
import { ApiError } from '../errors.ts';
import { sessionBoundDb } from './session-bound-db.ts';

/** One request as a handler sees it; `Params` are its route's path parameters (lib/http/route.ts ParamsOf). */
export interface Ctx<Params extends string = never> {
  app: Services;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Readonly<Record<Params, string>>;
  /** Client address, for rate limits, Tor and visitor hashing only: never stored or logged. */
  ip: string;
  cookies: Record<string, string>;
  session(): LiveSession | undefined;
  standing(): AccountStanding | undefined;
  actsAsModerator: boolean;
  /**
   * Throws 401 auth.required unless the session this request looked up is still live, 403
   * mod.required when it acts as a moderator and the account no longer is one; nothing to check
   * without a session. Every write transaction calls it first (ctx.app.db); a long read between its parts.
   */
  recheckSession(): void;
  /**
   * The request body as a form, read once with the configured limits. A handler without fields
   * reads it too, so a malformed or oversized body still answers 413/415.
   */
  form(): Promise<Form>;
  setCookie(cookie: string): void;
  shareable: boolean;
  sharedAnswer(status: number): boolean;
  readonly signal: AbortSignal;
}

/** The reason ctx.signal aborts with: nobody is left to answer, so it is neither answered nor logged. */
export class ClientGone extends Error {}

export class Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export const created = (body: unknown) => new Reply(201, body);

export function requireUser(ctx: Ctx): LiveSession {
  const session = ctx.session();
  if (!session) throw new ApiError(401, 'auth.required');
  return session;
}

/**
 * A moderator's session, or 401 auth.required / 403 mod.required. The pipeline calls it for
 * every `mod` route right after the session check; handlers call it first to learn who acts.
 * From then on each write of the request checks the role again (ctx.recheckSession).
 */
export function requireModerator(ctx: Ctx): User {
  const session = requireUser(ctx);
  const user = findUserById(ctx.app.db, session.uid);
  if (user?.role !== moderatorRole) throw new ApiError(403, 'mod.required');
  ctx.actsAsModerator = true;
  return user;
}

const urlencodedLimit = 64 * 1024;

export function makeContext(app: Services, req: IncomingMessage, res: ServerResponse, url: URL): Ctx<string> {
  let session: LiveSession | undefined | null = null;
  let standing: AccountStanding | undefined | null = null;
  let form: Promise<Form> | undefined;
  let aborter: AbortController | undefined;
  const cookies = parseCookies(req.headers.cookie);
  const ctx: Ctx<string> = {
    app: { ...app, db: sessionBoundDb(app.db, () => ctx.recheckSession()) },
    req,
    res,
    url,
    cookies,
    params: {},
    ip: clientIp(req, app.config.trustProxy),
    session() {
      if (session === null)
        session = cookies.session ? findSessionByToken(app.db, cookies.session, app.clock.now()) : undefined;
      return session;
    },
    standing() {
      if (standing === null) {
        const uid = ctx.session()?.uid;
        standing = uid === undefined ? undefined : accountStanding(app.db, uid, app.config, app.clock.now());
      }
      return standing;
    },
    actsAsModerator: false,
    recheckSession() {
      if (!session) return;
      const role = liveSessionRole(app.db, session.id, app.clock.now());
      if (role === undefined) throw new ApiError(401, 'auth.required');
      if (ctx.actsAsModerator && role !== moderatorRole) throw new ApiError(403, 'mod.required');
    },
    form() {
      form ??= readForm(req, { maxMultipart: app.config.maxUpload, maxUrlencoded: urlencodedLimit });
      return form;
    },
    setCookie(cookie) {
      const previous = res.getHeader('Set-Cookie');
      res.setHeader('Set-Cookie', [...(Array.isArray(previous) ? previous : []), cookie]);
    },
    shareable: false,
    sharedAnswer(status) {
      return ctx.shareable && status === 200 && !res.hasHeader('Set-Cookie');
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
  return ctx;
}
