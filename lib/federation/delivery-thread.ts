import type { webcrypto } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { HttpMessageSignaturesSpec } from '@fedify/fedify/sig';
import type { PreviewClientOptions } from '../outgoing/client.ts';

/**
 * The delivery job's thread (lib/federation/delivery-worker.ts): signing a delivery and POSTing it
 * cost the event loop about as much as answering a reader, so a drain to thousands of followers
 * slowed every page; on a thread of its own that work leaves the loop only the picking and settling
 * of rows. One thread per process, unref'd (it never keeps a process alive), started with the first
 * POST; each job (a board) opens its own client and keys there. It inherits the process's execArgv,
 * so it loads TypeScript as the process does. Each signer's private key is handed over once, as the
 * CryptoKey the job holds (cloned between threads, never written anywhere). A thread that ends by
 * itself fails the POSTs in flight, which the jobs retry, and the next POST starts a fresh one.
 */

export interface DeliveryThreadSetup {
  /** The guarded client's settings: plain fields only (a resolver function cannot cross threads). */
  client: Omit<PreviewClientOptions, 'resolve'>;
  maxAnswerBytes: number;
}

export interface SignedPost {
  inbox: string;
  body: string;
  keyId: string;
  /** The key's owner (0 the Group): the thread keeps each signer's key after the first POST. */
  signer: number;
  spec: HttpMessageSignaturesSpec;
}

export type DeliveryThreadMessage =
  | { type: 'open'; job: number; setup: DeliveryThreadSetup }
  | ({ type: 'post'; job: number; id: number; privateKey?: webcrypto.CryptoKey } & SignedPost)
  | { type: 'abort' | 'close'; job: number };

export interface PostAnswer {
  id: number;
  /** The inbox's status, 0 when there was none (refused, timed out, a network error). */
  status: number;
  detail: string;
}

export interface DeliveryThread {
  /** Signs and POSTs on the thread; `key` is asked only when the thread has not got this signer's key yet. */
  post(request: SignedPost, key: () => Promise<webcrypto.CryptoKey>): Promise<Omit<PostAnswer, 'id'>>;
  abort(): void;
  close(): Promise<void>;
}

type Answer = (answer: Omit<PostAnswer, 'id'>) => void;
let thread: Worker | undefined;
const pending = new Map<number, Answer>();
let nextId = 1;
let nextJob = 1;

function deliveryThread(): Worker {
  if (thread) return thread;
  const worker = new Worker(new URL('./delivery-worker.ts', import.meta.url));
  worker.on('message', ({ id, status, detail }: PostAnswer) => {
    pending.get(id)?.({ status, detail });
    pending.delete(id);
  });
  const gone = (why: string) => {
    if (thread !== worker) return;
    thread = undefined;
    for (const answer of pending.values()) answer({ status: 0, detail: `delivery thread ended: ${why}` });
    pending.clear();
  };
  worker.on('error', (err) => gone(err.message));
  worker.on('exit', (code) => gone(`exit code ${code}`));
  worker.unref();
  thread = worker;
  return worker;
}

export function startDeliveryThread(setup: DeliveryThreadSetup): DeliveryThread {
  const job = nextJob++;
  let openOn: Worker | undefined;
  let keyed = new Set<number>();
  let closed = false;

  return {
    async post(request, key) {
      if (closed) return { status: 0, detail: 'delivery thread stopped' };
      const worker = deliveryThread();
      if (openOn !== worker) {
        worker.postMessage({ type: 'open', job, setup } satisfies DeliveryThreadMessage);
        openOn = worker;
        keyed = new Set();
      }
      const privateKey = keyed.has(request.signer) ? undefined : await key();
      if (thread !== worker) return { status: 0, detail: 'delivery thread ended' };
      const id = nextId++;
      const answered = new Promise<Omit<PostAnswer, 'id'>>((resolve) => pending.set(id, resolve));
      worker.postMessage({ type: 'post', job, id, privateKey, ...request } satisfies DeliveryThreadMessage);
      keyed.add(request.signer);
      return answered;
    },
    abort() {
      if (openOn === thread) openOn?.postMessage({ type: 'abort', job } satisfies DeliveryThreadMessage);
    },
    async close() {
      closed = true;
      if (openOn === thread) openOn?.postMessage({ type: 'close', job } satisfies DeliveryThreadMessage);
    },
  };
}
