// The delivery thread (lib/federation/delivery-thread.ts): signs each delivery a job hands over and
// POSTs it through that job's guarded client, made by the same createPreviewClient from the settings'
// plain fields, so the board's one gate for outgoing requests holds here too. It answers
// {id, status, detail}; every rule about which delivery goes when stays with the job. The thread
// takes the lowest scheduling priority: nobody waits on a delivery, and a reader's request does.
import { parentPort } from 'node:worker_threads';
import type { webcrypto } from 'node:crypto';
import { signRequest } from '@fedify/fedify/sig';
import { createSemaphore } from '../host/semaphore.ts';
import { lowerThreadPriority } from '../host/thread-priority.mjs';
import { createPreviewClient } from '../outgoing/client.ts';
import type { DeliveryThreadMessage, DeliveryThreadSetup, PostAnswer } from './delivery-thread.ts';

lowerThreadPriority(19);

interface Job {
  setup: DeliveryThreadSetup;
  client: ReturnType<typeof createPreviewClient>;
  controller: AbortController;
  keys: Map<number, webcrypto.CryptoKey>;
}
const jobs = new Map<number, Job>();
// One signature runs at a time: the RSA work runs on the machine's few cores, which readers need too.
const signing = createSemaphore(1);

async function post(job: Job, message: Extract<DeliveryThreadMessage, { type: 'post' }>): Promise<PostAnswer> {
  // Each signer's key is handed over once: an actor's key never changes once made.
  if (message.privateKey) job.keys.set(message.signer, message.privateKey);
  const privateKey = job.keys.get(message.signer);
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
    const answer = await job.client.post(message.inbox, {
      headers,
      body: message.body,
      maxBytes: job.setup.maxAnswerBytes,
      signal: job.controller.signal,
    });
    return { id: message.id, status: answer.status, detail: `answered ${answer.status}` };
  } catch (err) {
    return { id: message.id, status: 0, detail: (err as Error).message };
  }
}

parentPort!.on('message', (message: DeliveryThreadMessage) => {
  if (message.type === 'open') {
    const { setup } = message;
    jobs.set(message.job, {
      setup,
      client: createPreviewClient(setup.client),
      controller: new AbortController(),
      keys: new Map(),
    });
    return;
  }
  const job = jobs.get(message.job);
  if (message.type === 'post') {
    if (!job) return parentPort!.postMessage({ id: message.id, status: 0, detail: 'delivery job closed' });
    void post(job, message).then((answer) => parentPort!.postMessage(answer));
    return;
  }
  job?.controller.abort();
  if (message.type === 'close' && job) {
    jobs.delete(message.job);
    void job.client.close();
  }
});
