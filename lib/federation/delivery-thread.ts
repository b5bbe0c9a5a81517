import type { webcrypto } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { HttpMessageSignaturesSpec } from '@fedify/fedify/sig';
import type { PreviewClientOptions } from '../outgoing/client.ts';

/**
 * The delivery job's thread (lib/federation/delivery-worker.ts): signing a delivery and POSTing it
 * cost the event loop about as much as answering a reader, so a drain to thousands of followers
 * slowed every page; on a thread of its own that work leaves the loop only the picking and settling
 * of rows. One thread per job, unref'd (it never keeps a process alive), started with its first POST; it
 * inherits the process's execArgv, so it loads TypeScript as the process does. Each signer's private
 * key is handed over once, as the CryptoKey the job holds (cloned between threads, never written
 * anywhere). A thread that ends by itself fails its POSTs in flight, which the job retries, and the
 * next POST starts a fresh one.
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
  | ({ type: 'post'; id: number; privateKey?: webcrypto.CryptoKey } & SignedPost)
  | { type: 'abort' };

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

export function startDeliveryThread(setup: DeliveryThreadSetup): DeliveryThread {
  let worker: Worker | undefined;
  let keyed = new Set<number>();
  const pending = new Map<number, (answer: Omit<PostAnswer, 'id'>) => void>();
  let nextId = 1;
  let closed = false;

  const spawn = (): Worker => {
    const thread = new Worker(new URL('./delivery-worker.ts', import.meta.url), { workerData: setup });
    thread.unref();
    thread.on('message', ({ id, status, detail }: PostAnswer) => {
      pending.get(id)?.({ status, detail });
      pending.delete(id);
    });
    const gone = (why: string) => {
      if (worker !== thread) return;
      worker = undefined;
      keyed = new Set();
      for (const answer of pending.values()) answer({ status: 0, detail: `delivery thread ended: ${why}` });
      pending.clear();
    };
    thread.on('error', (err) => gone(err.message));
    thread.on('exit', (code) => gone(`exit code ${code}`));
    return thread;
  };

  return {
    async post(request, key) {
      if (closed) return { status: 0, detail: 'delivery thread stopped' };
      const privateKey = keyed.has(request.signer) ? undefined : await key();
      worker ??= spawn();
      const id = nextId++;
      const answered = new Promise<Omit<PostAnswer, 'id'>>((resolve) => pending.set(id, resolve));
      worker.postMessage({ type: 'post', id, privateKey, ...request } satisfies DeliveryThreadMessage);
      keyed.add(request.signer);
      return answered;
    },
    abort() {
      worker?.postMessage({ type: 'abort' } satisfies DeliveryThreadMessage);
    },
    async close() {
      closed = true;
      const thread = worker;
      await thread?.terminate();
    },
  };
}
