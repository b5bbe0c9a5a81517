import type { webcrypto } from 'node:crypto';
import { kvCache, signRequest, type KvStore } from '@fedify/fedify';
import { preloadedContexts, type DocumentLoader, type RemoteDocument } from '@fedify/fedify';
import type { GuardedClient } from '../outgoing/client.ts';
import { instanceOf } from './instances.ts';

/**
 * Fedify's JSON-LD loaders on the board's guarded client (lib/outgoing/client.ts): every actor,
 * key and object Fedify fetches goes to public addresses on the allowed ports only, checked after
 * DNS and at every redirect, within a time limit and a byte cap, and never to an instance the
 * operator did not admit. Contexts Fedify knows come from its preloaded copies: the board never
 * fetches the ActivityStreams vocabulary from the network.
 */

/** The most one JSON-LD document may weigh: actors and notes are a few KiB; a collection page more. */
export const maxDocumentBytes = 1024 * 1024;

const jsonLdAccept = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';
const isJson = (type: string) => /^application\/([\w.+-]*\+)?json\b|^application\/ld\+json/.test(type);

export interface LoaderContext {
  client: GuardedClient;
  kv: KvStore;
  admitted: (host: string) => boolean;
}

export class RefusedDocument extends Error {}

/** A GET of one document through the guard; `headers` signs each hop when the request is authenticated. */
function guardedLoader(
  context: LoaderContext,
  headers?: (url: URL) => Promise<Record<string, string>>,
): DocumentLoader {
  return async (url, options) => {
    const preloaded = preloadedContexts[url];
    if (preloaded) return { contextUrl: null, document: preloaded, documentUrl: url };
    if (!context.admitted(instanceOf(url))) throw new RefusedDocument(`${instanceOf(url)} is not admitted`);
    const fetched = await context.client.get(url, {
      accept: jsonLdAccept,
      type: isJson,
      maxBytes: maxDocumentBytes,
      overflow: 'fail',
      signal: options?.signal,
      headers,
    });
    // A redirect to a refused instance is refused like a first request there.
    if (!context.admitted(fetched.url.host)) throw new RefusedDocument(`${fetched.url.host} is not admitted`);
    let document: unknown;
    try {
      document = JSON.parse(fetched.body.toString('utf8'));
    } catch {
      throw new RefusedDocument(`${fetched.url.href}: not JSON`);
    }
    return { contextUrl: null, document, documentUrl: fetched.url.href } satisfies RemoteDocument;
  };
}

/** The document loader: guarded, cached in Fedify's store (its own rules: a few minutes for actors and keys). */
export function documentLoaderOf(context: LoaderContext): DocumentLoader {
  return kvCache({ loader: guardedLoader(context), kv: context.kv, prefix: ['_fedify', 'remoteDocument'] });
}

export function contextLoaderOf(context: LoaderContext): DocumentLoader {
  return documentLoaderOf(context);
}

/**
 * A loader that signs its GETs as this actor (draft-cavage, what servers with authorized fetch
 * check), each redirect hop signed anew for its own URL; not cached (the answer may be meant
 * for this actor alone).
 */
export function authenticatedLoaderOf(
  context: LoaderContext,
  identity: { keyId: URL; privateKey: webcrypto.CryptoKey },
): DocumentLoader {
  return guardedLoader(context, async (url) => {
    const signed = await signRequest(
      new Request(url, { headers: { accept: jsonLdAccept } }),
      identity.privateKey,
      identity.keyId,
      { spec: 'draft-cavage-http-signatures-12' },
    );
    const headers: Record<string, string> = {};
    for (const name of ['date', 'signature']) {
      const value = signed.headers.get(name);
      if (value) headers[name] = value;
    }
    return headers;
  });
}
