import type { Ctx } from '../http/context.ts';
import { ApiError } from '../errors.ts';
import { wantsActivityJson } from '../http/negotiation.ts';
import type { FederationRuntime } from '../federation/runtime.ts';
import { inboxPace } from '../federation/inbox-pace.ts';
import { integer, json, object, string, type Answer, type Operation } from '../openapi/kit.ts';
import { findUserById } from '../accounts/users.ts';
import { requireUser } from '../http/context.ts';
import { fediverseHandle } from '../federation/handles.ts';
import { remoteFollowerCount } from '../federation/follows.ts';
import {
  busyRefusal,
  checkInboxActivity,
  inboxShareText,
  InstanceRefusal,
  settleInboxActivity,
} from '../federation/inbox-door.ts';

/**
 * The bridge from node:http to Fedify (docs/API.md "Federation"): a request to one of Fedify's
 * paths (WebFinger, NodeInfo, the actors, their inboxes, outboxes and followers) becomes a Web
 * `Request` on the board's own origin, its body read first with a limit, and Fedify's `Response`
 * goes back as it is. The rows are marked `federation` in lib/routes.ts, so with
 * BOARD_FEDERATION=off none of them exists.
 */

/** The most an inbox POST may carry: an activity is a few KiB; a bigger body is no activity. */
export const maxActivityBytes = 256 * 1024;

async function runtimeOf(ctx: Ctx): Promise<FederationRuntime> {
  const handle = ctx.app.federation;
  if (!handle) throw new ApiError(404, 'api.not_found');
  return handle.runtime();
}

/** The request body, at most maxActivityBytes (413 input.too_large past it, before more is read). */
async function readBody(ctx: Ctx): Promise<Buffer | undefined> {
  if (ctx.req.method !== 'POST') return undefined;
  const tooLarge = () => new ApiError(413, 'input.too_large', { limit: 'federation/size' });
  const declared = Number(ctx.req.headers['content-length'] ?? 0);
  if (declared > maxActivityBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > maxActivityBytes) throw tooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}

export async function sendWebResponse(ctx: Ctx, response: Response, more: Record<string, string> = {}): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = Buffer.from(await response.arrayBuffer());
  ctx.res.writeHead(response.status, {
    'Cache-Control': 'no-store',
    ...headers,
    ...more,
    'Content-Length': String(body.length),
  });
  ctx.res.end(ctx.req.method === 'HEAD' ? undefined : body);
}

/**
 * One of Fedify's paths, as Fedify reads it on the board's origin. An inbox POST first passes the
 * door (inbox-door.ts), then waits for its turn to be verified (inbox-pace.ts, which also holds
 * refusals); it counts in its rates once Fedify took it.
 */
async function answerWithFedify(ctx: Ctx, inbox = false): Promise<void> {
  const runtime = await runtimeOf(ctx);
  const body = await readBody(ctx);
  if (!inbox || !body) return sendWebResponse(ctx, await fedifyFetch(ctx, runtime, body));
  const { app } = ctx;
  const door = {
    db: app.db,
    limits: app.limits,
    mode: app.config.federation,
    limitsFactor: app.config.limitsFactor,
    pending: runtime.inboxPending,
  };
  let response: Response | undefined;
  let instance: string;
  try {
    const admitted = checkInboxActivity(door, body, app.clock.now());
    instance = admitted.instance;
    let endTurn: (() => void) | undefined;
    try {
      endTurn = await runtime.inboxPace.verificationTurn(instance);
      if (!endTurn) throw busyRefusal(instance);
      response = await fedifyFetch(ctx, runtime, body);
    } finally {
      endTurn?.();
      settleInboxActivity(door, admitted, response?.ok ?? false, app.clock.now());
    }
  } catch (err) {
    if (!(err instanceof InstanceRefusal)) throw err;
    if (await runtime.inboxPace.holdRefusal(err.instance)) throw err;
    throw new ApiError(err.status, err.code, { ...err.options, headers: { ...err.options.headers, ...closing } });
  }
  const paced = response.status !== 401 || (await runtime.inboxPace.holdRefusal(instance));
  await sendWebResponse(ctx, response, paced ? {} : closing);
}

/** Past the bound of held refusals: the answer goes at once, and the sender pays for a new connection. */
const closing = { Connection: 'close' };

async function fedifyFetch(ctx: Ctx, runtime: FederationRuntime, body: Buffer | undefined): Promise<Response> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const { origin } = ctx.app.config;
  const request = new Request(new URL(ctx.req.url ?? '/', origin), {
    method: ctx.req.method,
    headers,
    body: body && body.length > 0 ? new Uint8Array(body) : undefined,
  });
  return runtime.federation.fetch(request, {
    contextData: { db: ctx.app.db, config: ctx.app.config, clock: ctx.app.clock, log: ctx.app.log },
    onNotFound: () => new Response('Not Found', { status: 404, headers: { 'Content-Type': 'text/plain' } }),
    onNotAcceptable: () =>
      new Response('Not Acceptable', { status: 406, headers: { 'Content-Type': 'text/plain', Vary: 'Accept' } }),
  });
}

/**
 * For a page that is also an object (/e/{pid}, /u/{name}): when federation is on and the request
 * asks for JSON-LD, answers it with `answer`'s object and returns true; else false, and the page
 * handler draws the page.
 */
export async function answeredAsObject(
  ctx: Ctx,
  answer: (runtime: FederationRuntime) => Promise<Response | undefined>,
): Promise<boolean> {
  if (!ctx.app.federation || !wantsActivityJson(ctx.req.headers.accept)) return false;
  const response = await answer(await ctx.app.federation.runtime());
  if (!response) return false;
  await sendWebResponse(ctx, response);
  return true;
}

const activityJson = (status: number, description: string): Answer => ({
  status,
  description,
  mediaType: 'application/activity+json',
  schema: { type: 'object' },
});
const notFound: Answer = { status: 404, description: 'no such actor, or federation is off', mediaType: 'text/plain' };

function fedifyEndpoint(doc: Operation) {
  return Object.assign((ctx: Ctx) => answerWithFedify(ctx), { doc });
}

export const webFinger = fedifyEndpoint({
  id: 'webFinger',
  summary: 'WebFinger (RFC 7033): ?resource=acct:name@host, acct:board@host or an actor URL',
  ok: { status: 200, description: 'the JRD', mediaType: 'application/jrd+json', schema: { type: 'object' } },
  more: [notFound],
});
export const nodeInfoLinks = fedifyEndpoint({
  id: 'nodeInfoLinks',
  summary: 'Where the NodeInfo document is',
  ok: { status: 200, description: 'links to /nodeinfo/2.1', mediaType: 'application/json', schema: { type: 'object' } },
});
export const nodeInfo = fedifyEndpoint({
  id: 'nodeInfo',
  summary: 'NodeInfo 2.1: software, protocols, users and entries as GET /api/stats counts them',
  ok: { status: 200, description: 'the NodeInfo document', mediaType: 'application/json', schema: { type: 'object' } },
});
export const actor = fedifyEndpoint({
  id: 'activityPubActor',
  summary: 'An actor: the Group "board" or the Person of a public account (by uid)',
  ok: activityJson(200, 'the Group or Person as JSON-LD'),
  more: [
    activityJson(410, 'a deleted account: a Tombstone'),
    notFound,
    { status: 406, description: 'an Accept without JSON-LD', mediaType: 'text/plain' },
  ],
});
const inboxDoc: Operation = {
  id: 'activityPubInbox',
  summary:
    'An actor\'s inbox, signed (HTTP Signatures): follows, posts and replies, votes, shares, edits, deletions and reports (docs/API.md "What comes in")',
  ok: { status: 202, description: 'taken; handled past the answer', mediaType: 'text/plain' },
  more: [{ status: 401, description: 'no or a bad signature', mediaType: 'text/plain' }, notFound],
  errors: {
    400: ['input.invalid', 'federation.foreign_object'],
    403: ['federation.instance_refused'],
    413: ['input.too_large'],
    429: ['rate.limited'],
  },
  when: {
    'rate.limited': `the verified activities of the sender's instance (${inboxShareText('instance')}) or of its actor (${inboxShareText('actor')}), scaled by \`BOARD_LIMITS\`, are used up, or ${inboxPace.waitingPerInstance} of its instance's activities wait for verification already (docs/API.md "What comes in"); with \`Retry-After\`. A refusal of a known instance is held before it goes`,
  },
};
export const inbox = Object.assign((ctx: Ctx) => answerWithFedify(ctx, true), { doc: inboxDoc });
export const sharedInbox = Object.assign((ctx: Ctx) => answerWithFedify(ctx, true), {
  doc: { ...inboxDoc, id: 'activityPubSharedInbox', summary: 'The shared inbox' },
});
export const outbox = fedifyEndpoint({
  id: 'activityPubOutbox',
  summary: "An actor's outbox: its count of public entries (the list is not published)",
  ok: activityJson(200, 'an OrderedCollection with totalItems'),
  more: [notFound],
});
export const followers = fedifyEndpoint({
  id: 'activityPubFollowers',
  summary: "An actor's followers on other servers: the count is public, the list is not",
  ok: activityJson(200, 'an OrderedCollection with totalItems'),
  more: [notFound],
});

/** GET /api/user/federation: the own handle and followers on other servers (the settings page shows them). */
export function ownFederation(ctx: Ctx) {
  const me = requireUser(ctx);
  const user = findUserById(ctx.app.db, me.uid);
  if (!user) throw new ApiError(401, 'auth.required');
  return { handle: fediverseHandle(ctx.app.config, user), followers: remoteFollowerCount(ctx.app.db, user.uid) };
}
ownFederation.doc = {
  id: 'ownFederation',
  summary: 'The own handle on other servers and how many accounts there follow it',
  ok: json(
    'the handle and the count',
    object({ handle: string('@name@host, as other servers find the account'), followers: integer() }),
  ),
} satisfies Operation;
