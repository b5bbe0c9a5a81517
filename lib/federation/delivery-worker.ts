// The delivery thread (lib/federation/delivery-thread.ts): signs each delivery the job hands over and
// POSTs it through its own guarded client, made by the same createPreviewClient from the settings'
// plain fields, so the board's one gate for outgoing requests holds here too. It answers
// {id, status, detail}; every rule about which delivery goes when stays with the job. The thread
// takes the lowest scheduling priority: nobody waits on a delivery, and a reader's request does.
import { parentPort, workerData } from 'node:worker_threads';
import type { webcrypto } from 'node:crypto';
import { signRequest } from '@fedify/fedify/sig';
import { createSemaphore } from '../host/semaphore.ts';
import { lowerThreadPriority } from '../host/thread-priority.mjs';
import { createPreviewClient } from '../outgoing/client.ts';
import type { DeliveryThreadMessage, DeliveryThreadSetup, PostAnswer } from './delivery-thread.ts';

lowerThreadPriority(19);

const setup = workerData as DeliveryThreadSetup;
const client = createPreviewClient(setup.client);
const controller = new AbortController();
// Each signer's key is handed over once (an actor's key never changes once made), and one
// signature runs at a time: the RSA work runs on the machine's few cores, which readers need too.
const keys = new Map<number, webcrypto.CryptoKey>();
const signing = createSemaphore(1);

async function post(message: Extract<DeliveryThreadMessage, { type: 'post' }>): Promise<PostAnswer> {
  if (message.privateKey) keys.set(message.signer, message.privateKey);
  const privateKey = keys.get(message.signer);
  if (!privateKey) return { id: message.id, status: 0, detail: `no key for signer ${message.signer}` };
  try {
    const request = new Request(message.inbox, {
      method: 'POST',
      headers: { 'content-type': 'application/activity+json', accept: 'application/activity+json' },
      body: message.body,
    });
    const signed = await signing(() =>
      signRequest(request, privateKey, new URL(message.keyId), { spec: message.spec }),
    );
    const headers: Record<string, string> = {};
    signed.headers.forEach((value, name) => {
      if (name !== 'host' && name !== 'content-length') headers[name] = value;
    });
    const answer = await client.post(message.inbox, {
      headers,
      body: message.body,
      maxBytes: setup.maxAnswerBytes,
      signal: controller.signal,
    });
    return { id: message.id, status: answer.status, detail: `answered ${answer.status}` };
  } catch (err) {
    return { id: message.id, status: 0, detail: (err as Error).message };
  }
}

parentPort!.on('message', (message: DeliveryThreadMessage) => {
  if (message.type === 'abort') return controller.abort();
  void post(message).then((answer) => parentPort!.postMessage(answer));
});
