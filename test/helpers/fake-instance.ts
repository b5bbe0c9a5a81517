import { generateKeyPairSync, webcrypto } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { signRequest } from '@fedify/fedify';

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
  /** POSTs `activity` to `url` signed as its actor with the instance's key, a forger's, or none. */
  send(
    url: string,
    activity: Record<string, unknown> | string,
    options?: { key?: 'own' | 'other' | 'none' },
  ): Promise<{ status: number; headers: Headers; body: string }>;
  close(): Promise<void>;
}

/**
 * `documents`: what the instance answers for a path other than an actor's (a Note fetched by its
 * id); undefined answers 404. A test may hold its answer there (test/helpers/gate.ts).
 */
export async function startFakeInstance(
  port: number,
  documents?: (path: string) => Promise<Record<string, unknown> | undefined>,
): Promise<FakeInstance> {
  const host = `127.0.0.1:${port}`;
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const otherPair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicKeyPem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const actorOf = (name: string, on = host) => `http://${on}/users/${name}`;
  let serial = 0;
  const server: Server = createServer((req, res) => {
    const name = /^\/users\/([a-z0-9]+)$/.exec(req.url ?? '')?.[1];
    if (!name && documents)
      return void documents(req.url ?? '').then((document) =>
        document
          ? res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(document))
          : res.writeHead(404).end(),
      );
    if (!name) return void res.writeHead(404).end();
    const id = actorOf(name);
    res.writeHead(200, { 'content-type': 'application/activity+json' });
    res.end(
      JSON.stringify({
        '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
        id,
        type: 'Person',
        preferredUsername: name,
        inbox: `${id}/inbox`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
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
    send,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
