import type { Log } from './job-deps.ts';

/**
 * BOARD_NOTIFY_URL: tells the operator about new reports without e-mail. Messages are POSTed
 * as German plain text (what ntfy and most chat webhooks take) by one background sender, never
 * on the request path. The URL is the operator's own setting, so the preview fetcher's
 * public-address rule does not apply. Log lines name the failure, never a client address (a
 * message only carries an entry's address).
 */
export interface Notifier {
  /** Queues a message; returns at once. */
  send(text: string): void;
  /** Shutdown: aborts the message being sent and drops the waiting ones, logging how many. */
  stop(): Promise<void>;
}

export interface NotifyOptions {
  /** Per try. Default 5 s. */
  timeoutMs?: number;
  /** Wait before the second try; doubled before the third. Default 2 s. */
  backoffMs?: number;
}

/** At most 3 tries per message: a webhook that is down for a minute must not pile up work. */
export const notifyTries = 3;
/** Past this many waiting messages the oldest goes: a dead webhook must not grow memory. */
export const maxPendingNotifications = 100;

export function startNotifier(url: string, log: Log, options: NotifyOptions = {}): Notifier {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const backoffMs = options.backoffMs ?? 2_000;
  const pending: string[] = [];
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();
  let busy = false;

  async function deliver(text: string): Promise<void> {
    for (let attempt = 1; attempt <= notifyTries; attempt++) {
      const failure = await tryOnce(text);
      if (!failure) return;
      if (stopping.signal.aborted) return;
      if (attempt === notifyTries) {
        log(`notify: ${failure}; gave up after ${notifyTries} tries`);
        return;
      }
      log(`notify: ${failure}; trying again (${attempt + 1} of ${notifyTries})`);
      await sleep(backoffMs * 2 ** (attempt - 1), stopping.signal);
    }
  }

  /** One POST; the failure's description, or undefined when the webhook took it. */
  async function tryOnce(text: string): Promise<string | undefined> {
    try {
      const answer = await fetch(url, {
        method: 'POST',
        body: text,
        headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        // A webhook that redirects is misconfigured: a followed 301/302 would turn the POST into a GET.
        redirect: 'error',
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stopping.signal]),
      });
      await answer.body?.cancel();
      return answer.ok ? undefined : `the webhook answered ${answer.status}`;
    } catch (err) {
      const error = err as Error;
      if (error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
      const cause = (error.cause as Error | undefined)?.message;
      return `cannot reach the webhook (${cause ?? error.message})`;
    }
  }

  /** One message at a time, until none is left; `busy` changes in the same turn as the last check. */
  async function work(): Promise<void> {
    busy = true;
    try {
      for (let text = pending.shift(); text !== undefined && !stopping.signal.aborted; text = pending.shift()) {
        await deliver(text);
      }
    } finally {
      busy = false;
    }
  }

  return {
    send(text) {
      if (stopping.signal.aborted) return;
      pending.push(text);
      if (pending.length > maxPendingNotifications) {
        pending.shift();
        log(`notify: more than ${maxPendingNotifications} messages waiting; dropped the oldest`);
      }
      if (!busy) running = work();
    },
    async stop() {
      const unsent = pending.length + (busy ? 1 : 0);
      stopping.abort();
      if (unsent) log(`notify: stopping; ${unsent} messages not sent`);
      pending.length = 0;
      await running;
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Open reports on one entry that are worth a second message: enough people agree that it cannot wait. */
export const notifyManyReports = 5;

/**
 * After a stored report: a message when the entry got its first open report, and again when its
 * open reports reach 5. German, with only the entry's address: never its text or a reporter.
 */
export function announceReports(app: { notifier?: Pick<Notifier, 'send'>; config: { origin: string } }, pid: number, openReports: number): void {
  if (!app.notifier) return;
  const address = `${app.config.origin}/e/${pid}`;
  if (openReports === 1) app.notifier.send(`Neue Meldung im Board: ${address}`);
  else if (openReports === notifyManyReports) app.notifier.send(`${notifyManyReports} offene Meldungen zu einem Beitrag im Board: ${address}`);
}
