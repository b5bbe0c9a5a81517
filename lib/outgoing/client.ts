import type { LookupFunction } from 'node:net';
// Why undici and not the global fetch or node:http: its Agent takes `connect.lookup`, so the DNS
// answer we check is the one the socket connects to (no gap for DNS rebinding), and fetch and Agent
// come from one pinned version rather than whatever undici the running Node bundles. Redirects,
// decompression and abort signals stay fetch's.
import type { Agent, Response } from 'undici';
import { createDnsResolver, DnsTimeout, type Resolver } from './dns.ts';
import { checkTarget, createAddressPolicy, PreviewBlockedError, type AddressPolicy } from './guard.ts';

export type { Resolver };

type Undici = typeof import('undici');
let undiciLoaded: Promise<Undici> | undefined;
/** undici, loaded with the first outgoing request: a process that sends none never pays for loading it. */
export const loadUndici = (): Promise<Undici> => (undiciLoaded ??= import('undici'));

export interface PreviewClientOptions {
  allow: readonly string[];
  ports: readonly number[];
  userAgent: string;
  timeoutMs?: number;
  resolve?: Resolver;
  /**
   * Plain `http://` only to an address inside `allow` (federation: a test instance on loopback),
   * never to a public one: another server's traffic is https, and a signed request in the clear
   * could be read and replayed on the way.
   */
  httpOnlyInsideAllow?: boolean;
}

export interface GetOptions {
  accept: string;
  type: (contentType: string) => boolean;
  maxBytes: number;
  /** 'truncate': keep the first maxBytes (HTML); 'fail': refuse a larger body (images, JSON). */
  overflow: 'truncate' | 'fail';
  enough?: (body: Buffer) => boolean;
  signal?: AbortSignal;
  /** Headers of each request, redirects included, made for its URL (a signature covers the URL). */
  headers?: (url: URL) => Record<string, string> | Promise<Record<string, string>>;
}

/** A POST: its body goes once, and a redirect is an answer like any other (never followed). */
export interface PostOptions {
  headers: Record<string, string>;
  body: string;
  /** Most bytes of the answer's body read; the rest is cut off (an error page tells enough in its start). */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface Posted {
  status: number;
  headers: Headers;
  body: Buffer;
}

export interface Fetched {
  url: URL;
  contentType: string;
  body: Buffer;
}

/**
 * Why a resource could not be fetched: blocked, timeout (the site did not finish in time),
 * dns-timeout (our resolver's own limit: a local timeout, says nothing sure about the link), a bad
 * answer or a network error.
 */
export class PreviewFetchError extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
    this.name = 'PreviewFetchError';
  }
}

export interface PreviewClient {
  get(url: string | URL, options: GetOptions): Promise<Fetched>;
  close(): Promise<void>;
}

/** The guarded client with POST besides (federation's deliveries), its timeout covering the answer's body too. */
export interface GuardedClient extends PreviewClient {
  post(url: string | URL, options: PostOptions): Promise<Posted>;
}

export const maxRedirects = 5;
const defaultTimeoutMs = 10_000;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * net.connect's `lookup` hook: resolves, refuses the host when ANY address is not allowed (a
 * mixed answer is a classic rebinding trick), and hands only checked addresses to the socket.
 * `signal` cancels the lookup with the fetch it belongs to.
 */
export function guardedLookup(policy: AddressPolicy, resolve: Resolver, signal?: AbortSignal): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, signal).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => a.family === options.family)
            : addresses;
        if (wanted.length === 0)
          return callback(Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }), '');
        for (const { address } of addresses) {
          const verdict = policy(address);
          if (!verdict.allowed)
            return callback(new PreviewBlockedError('address', `${hostname} resolves to ${verdict.why}`), '');
        }
        if (options.all) callback(null, wanted);
        else callback(null, wanted[0]!.address, wanted[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

/** The guarded HTTP client of the preview fetcher; see lib/outgoing/guard.ts for the rules. */
export function createPreviewClient(options: PreviewClientOptions): GuardedClient {
  const publicPolicy = createAddressPolicy(options.allow);
  // Plain http only inside the allowance: the same CIDRs, and nothing public besides.
  const insidePolicy = createAddressPolicy(options.allow, false);
  const policyFor = (url: URL) =>
    options.httpOnlyInsideAllow && url.protocol === 'http:' ? insidePolicy : publicPolicy;
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const resolve = options.resolve ?? createDnsResolver();
  /**
   * One kept-alive agent per address policy. Safe because the check sits at connect: each new
   * connection resolves through its policy, and a kept one goes where that check allowed.
   */
  const agents = new Map<AddressPolicy, Agent>();
  const agentFor = (policy: AddressPolicy, undici: Undici): Agent => {
    let agent = agents.get(policy);
    if (!agent) {
      agent = new undici.Agent({ connect: { lookup: guardedLookup(policy, resolve), timeout: timeoutMs } });
      agents.set(policy, agent);
    }
    return agent;
  };

  /**
   * One request's machinery: one timer for everything (every redirect hop and the body) and the
   * caller's abort signal. `run` does the requests and reads the body; `checked` checks a URL
   * before its request and gives the agent for it.
   */
  async function guarded<T>(
    outer: AbortSignal | undefined,
    run: (signal: AbortSignal, checked: (url: URL) => Agent, fetch: Undici['fetch']) => Promise<T>,
  ): Promise<T> {
    const undici = await loadUndici();
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    const stop = () => abort.abort();
    if (outer?.aborted) stop();
    outer?.addEventListener('abort', stop, { once: true });
    try {
      return await run(
        abort.signal,
        (url) => {
          const policy = policyFor(url);
          checkTarget(url, options.ports, policy);
          return agentFor(policy, undici);
        },
        undici.fetch,
      );
    } catch (err) {
      throw describe(err, timedOut, timeoutMs);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', stop);
    }
  }

  const get = (input: string | URL, wanted: GetOptions): Promise<Fetched> =>
    guarded(wanted.signal, async (signal, check, fetch) => {
      let url = new URL(input);
      for (let redirects = 0; ; redirects++) {
        const agent = check(url);
        const res = await fetch(url, {
          dispatcher: agent,
          redirect: 'manual',
          signal,
          headers: {
            'user-agent': options.userAgent,
            accept: wanted.accept,
            'accept-language': 'de,en;q=0.7',
            ...(await wanted.headers?.(url)),
          },
        });
        if (redirectStatuses.has(res.status)) {
          await res.body?.cancel();
          const location = res.headers.get('location');
          if (!location) throw new PreviewFetchError('status', `${res.status} without Location from ${url.href}`);
          if (redirects === maxRedirects)
            throw new PreviewFetchError('redirects', `more than ${maxRedirects} redirects`);
          url = new URL(location, url);
          continue;
        }
        if (res.status !== 200) {
          await res.body?.cancel();
          throw new PreviewFetchError('status', `${url.href} answered ${res.status}`);
        }
        const contentType = (res.headers.get('content-type') ?? '').toLowerCase();
        if (!wanted.type(contentType)) {
          await res.body?.cancel();
          throw new PreviewFetchError('type', `${url.href} sent ${contentType || 'no content type'}`);
        }
        return { url, contentType, body: await readBody(res, wanted) };
      }
    });

  const post = (input: string | URL, wanted: PostOptions): Promise<Posted> =>
    guarded(wanted.signal, async (signal, check, fetch) => {
      const url = new URL(input);
      const agent = check(url);
      const res = await fetch(url, {
        method: 'POST',
        dispatcher: agent,
        redirect: 'manual',
        signal,
        headers: { 'user-agent': options.userAgent, ...wanted.headers },
        body: wanted.body,
      });
      const body = await readBody(res, { maxBytes: wanted.maxBytes, overflow: 'truncate' });
      return { status: res.status, headers: res.headers, body };
    });

  return {
    get,
    post,
    async close() {
      await Promise.all([...agents.values()].map((agent) => agent.destroy()));
    },
  };
}

/** Reads at most maxBytes of the decoded body; leaving the loop early cancels the download. */
async function readBody(res: Response, options: Pick<GetOptions, 'maxBytes' | 'overflow' | 'enough'>): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (options.overflow === 'fail' && declared > options.maxBytes && !res.headers.get('content-encoding')) {
    await res.body?.cancel();
    throw new PreviewFetchError('size', `body of ${declared} bytes is over ${options.maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    const bytes = Buffer.from(chunk);
    if (size + bytes.length > options.maxBytes) {
      if (options.overflow === 'fail') throw new PreviewFetchError('size', `body is over ${options.maxBytes} bytes`);
      chunks.push(bytes.subarray(0, options.maxBytes - size));
      size = options.maxBytes;
      break;
    }
    chunks.push(bytes);
    size += bytes.length;
    if (options.enough?.(Buffer.concat(chunks.slice(-2)))) break;
  }
  return Buffer.concat(chunks, size);
}

function describe(err: unknown, timedOut: boolean, timeoutMs: number): Error {
  if (err instanceof PreviewFetchError || err instanceof PreviewBlockedError) return err;
  for (let cause: unknown = err; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof PreviewBlockedError) return cause;
    if (cause instanceof DnsTimeout) return new PreviewFetchError('dns-timeout', cause.message);
  }
  if (timedOut) return new PreviewFetchError('timeout', `no complete answer within ${timeoutMs / 1000} s`);
  if (err instanceof Error && err.name === 'AbortError') return new PreviewFetchError('aborted', 'stopped');
  const cause = (err as { cause?: unknown }).cause;
  return new PreviewFetchError('network', cause instanceof Error ? cause.message : (err as Error).message);
}
