import { generateKeyPairSync, webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { signRequest } from '@fedify/fedify';

/** The ActivityStreams context, and its Public address as Mastodon and Lemmy compare it. */
export const activityStreams = 'https://www.w3.org/ns/activitystreams';
export const publicAddress = `${activityStreams}#Public`;

/**
 * Another fediverse server on 127.0.0.1 as the inbox tests meet it: it serves its actors (one RSA
 * key for all, `/users/{name}`) and signs what they send (draft-cavage, as Mastodon signs). A second
 * key stands for a forger. Start it on a port the board allows (test/helpers/federation.ts).
 */
export interface FakeInstance {
  /** `127.0.0.1:{port}`, the instance's host as the board names it. */
  host: string;
  /** The id of actor `name` on this instance, or on `host`. */
  actorOf(name: string, host?: string): string;
  /** A fresh activity id on `host` (default this instance). */
  nextId(host?: string): string;
  /** A fresh `Like` of `object` (a URL) by actor `name` of this instance, as a flood or a rate test sends it. */
  likeOf(name: string, object: string): Record<string, unknown>;
  /** Serves `document` as JSON-LD at `path` (a post the board may fetch), counting each GET. */
  serve(path: string, document: Record<string, unknown>): void;
  /** How many requests `path` had. */
  fetches(path: string): number;
  /** Makes actor `name` of this type (default `Person`; a Lemmy community or a NodeBB category is a `Group`). */
  setActorType(name: string, type: string): void;
  /** POSTs `activity` to `url` signed as its actor with the instance's key, a forger's, or none. */
  send(
    url: string,
    activity: Record<string, unknown> | string,
    options?: { key?: 'own' | 'other' | 'none' },
  ): Promise<{ status: number; headers: Headers; body: string }>;
  close(): Promise<void>;
}

export interface FakeInstanceOptions {
  /** More properties of actor `name`'s document (an `icon`…). */
  actor?: (name: string) => Record<string, unknown>;
  /** Other files it serves, by path (`/media/a.png`): a media server, as Mastodon's are. */
  files?: Record<string, { type: string; body: Buffer }>;
  /**
   * What it answers for other paths (a Note fetched by its id), asked after `serve`'s and `files`;
   * undefined answers 404. A test may hold its answer there (test/helpers/gate.ts).
   */
  documents?: (path: string) => Promise<Record<string, unknown> | undefined>;
  /** Awaited before an actor's document (and so its key) is answered: a gate the test holds (test/helpers/gate.ts). */
  beforeActor?: (name: string) => Promise<void>;
}

export async function startFakeInstance(port: number, options: FakeInstanceOptions = {}): Promise<FakeInstance> {
  const host = `127.0.0.1:${port}`;
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const otherPair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const actorOf = (name: string, on = host) => `http://${on}/users/${name}`;
  let serial = 0;
  const documents = new Map<string, Record<string, unknown>>();
  const requests = new Map<string, number>();
  const actorTypes = new Map<string, string>();
  const server: Server = createServer(async (req, res) => {
    const path = req.url ?? '';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    const document = documents.get(path);
    if (document) {
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      return void res.end(JSON.stringify(document));
    }
    const file = options.files?.[path];
    if (file) return void res.writeHead(200, { 'content-type': file.type }).end(file.body);
    const name = /^\/users\/([a-z0-9]+)$/.exec(path)?.[1];
    if (!name && options.documents)
      return void options
        .documents(path)
        .then((answer) =>
          answer
            ? res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(answer))
            : res.writeHead(404).end(),
        );
    if (!name) return void res.writeHead(404).end();
    await options.beforeActor?.(name);
    const id = actorOf(name);
    res.writeHead(200, { 'content-type': 'application/activity+json' });
    res.end(
      JSON.stringify({
        '@context': [activityStreams, 'https://w3id.org/security/v1'],
        id,
        type: actorTypes.get(name) ?? 'Person',
        preferredUsername: name,
        inbox: `${id}/inbox`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
        ...options.actor?.(name),
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));

  async function send(
    url: string,
    activity: Record<string, unknown> | string,
    options: { key?: 'own' | 'other' | 'none' } = {},
  ): Promise<{ status: number; headers: Headers; body: string }> {
    const body = typeof activity === 'string' ? activity : JSON.stringify(activity);
    let request = new Request(url, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    const key = options.key ?? 'own';
    if (key !== 'none' && typeof activity !== 'string') {
      const privateKey = await webcrypto.subtle.importKey(
        'pkcs8',
        (key === 'own' ? pair : otherPair).privateKey.export({ type: 'pkcs8', format: 'der' }),
        { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
        true,
        ['sign'],
      );
      request = await signRequest(request, privateKey, new URL(`${activity.actor}#main-key`), {
        spec: 'draft-cavage-http-signatures-12',
      });
    }
    const answer = await fetch(request);
    return { status: answer.status, headers: answer.headers, body: await answer.text() };
  }

  return {
    host,
    actorOf,
    nextId: (on = host) => `http://${on}/activities/${++serial}`,
    likeOf: (name, object) => ({
      '@context': activityStreams,
      id: `http://${host}/activities/${++serial}`,
      type: 'Like',
      actor: actorOf(name),
      object,
    }),
    serve: (path, document) => void documents.set(path, document),
    fetches: (path) => requests.get(path) ?? 0,
    setActorType: (name, type) => void actorTypes.set(name, type),
    send,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
