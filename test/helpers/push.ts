import assert from 'node:assert/strict';
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The browser's side of Web Push, written for the tests from the RFCs (not from web-push): a
 * subscription's key pair and auth secret, the decryption of an aes128gcm message (RFC 8291,
 * RFC 8188) and the check of the VAPID header (RFC 8292). A push service in a test decrypts what
 * the board sent with these, so a test sees the text a phone would show.
 */

export interface FakeBrowser {
  ecdh: ECDH;
  /** base64url: what the browser gives as keys.p256dh and keys.auth. */
  p256dh: string;
  auth: string;
}

export function fakeBrowser(): FakeBrowser {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** RFC 8291 section 3.4 and RFC 8188: one record, the sender's key in the header's keyid. */
export function decryptPush(browser: FakeBrowser, body: Buffer): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const idLength = body[20]!;
  const senderKey = body.subarray(21, 21 + idLength);
  const record = body.subarray(21 + idLength);
  assert.equal(idLength, 65, 'the keyid is the sender’s uncompressed P-256 key');
  assert.ok(record.length <= recordSize, 'one record');
  const uaPublic = browser.ecdh.getPublicKey();
  const ecdhSecret = browser.ecdh.computeSecret(senderKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, senderKey]);
  const ikm = Buffer.from(hkdfSync('sha256', ecdhSecret, Buffer.from(browser.auth, 'base64url'), keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then zero padding.
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  assert.equal(padded[end], 2, 'the last record’s padding delimiter');
  return padded.subarray(0, end).toString('utf8');
}

export interface VapidClaims {
  aud: string;
  exp: number;
  sub: string;
}

/** Checks `Authorization: vapid t=<JWT>, k=<key>`: k is the board's key and the ES256 signature verifies with it; returns the claims. */
export function verifyVapid(req: IncomingMessage, boardPublicKey: string): VapidClaims {
  const header = String(req.headers.authorization ?? '');
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header);
  assert.ok(match, `a VAPID Authorization header: ${header}`);
  const [, token, key] = match;
  assert.equal(key, boardPublicKey, 'k is the board’s public key');
  const [head, claims, signature] = token!.split('.') as [string, string, string];
  assert.deepEqual(JSON.parse(Buffer.from(head, 'base64url').toString()), { typ: 'JWT', alg: 'ES256' });
  const point = Buffer.from(boardPublicKey, 'base64url');
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  assert.ok(
    verify(
      'sha256',
      Buffer.from(`${head}.${claims}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    ),
    'the JWT is signed with the board’s key',
  );
  return JSON.parse(Buffer.from(claims, 'base64url').toString()) as VapidClaims;
}

/** The whole request body. */
export async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface Received {
  path: string;
  text: string;
  headers: IncomingMessage['headers'];
  claims: { aud: string; exp: number; sub: string };
}

/**
 * A push service for the tests (serve its handler on a fake site's paths): decrypts each push for
 * the device its path names; answers 201, or what `answers` says for the path, or first what
 * `script` queues for it (one answer per push, with its headers: a 503 with Retry-After).
 */
export function pushService() {
  const devices = new Map<string, FakeBrowser>();
  const received: Received[] = [];
  const answers = new Map<string, number>();
  const script = new Map<string, { status: number; headers?: Record<string, string> }[]>();
  let held: { arrived: () => void; release: Promise<void> } | undefined;
  let boardKey = '';
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const body = await bodyOf(req);
    const device = devices.get(path);
    if (!device) return void res.writeHead(404).end();
    received.push({ path, text: decryptPush(device, body), headers: req.headers, claims: verifyVapid(req, boardKey) });
    if (held && path === '/push/hang') {
      held.arrived();
      await held.release;
    }
    const next = script.get(path)?.shift();
    if (next) return void res.writeHead(next.status, next.headers).end();
    res.writeHead(answers.get(path) ?? 201).end();
  };
  return {
    devices,
    received,
    answers,
    script,
    handler,
    setBoardKey(key: string) {
      boardKey = key;
    },
    /** The next push to /push/hang waits at the service until `release()`; `arrived` settles when it is there. */
    holdHang() {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      held = {
        arrived,
        release: new Promise<void>((resolve) => {
          release = resolve;
        }),
      };
      return { arrival, release };
    },
  };
}
