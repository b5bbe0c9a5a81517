import type { Log } from '../log.ts';

/**
 * BOARD_NOTIFY_URL: tells the operator about new reports and the board's door without e-mail, as
 * German plain text (what ntfy and most chat webhooks take), from one background sender (in a
 * cluster the primary's, for every worker). The URL is the operator's own setting, so the preview
 * fetcher's address rule does not apply. Why notices are coalesced: reports are anonymous, so
 * anyone can send many, and the webhook (or the phone it rings) must not be flooded nor a real
 * alert pushed out. At most one message is on its way and the next starts `gapMs` after it ended;
 * notices meanwhile wait as counts, never as a queue. A message the webhook does not take goes back
 * into the count; only a shutdown drops one, logged.
 */

export interface ReportNotice {
  pid: number;
  openReports: number;
  /** The server a report came from (a Flag); absent for one made here. */
  instance?: string;
}

/**
 * A notice about the board's door (lib/registration/): an application waits, or the surge gate
 * switched registration to approval. Coalesced with the reports, so a wave of bots is one message.
 */
export type DoorNotice = { about: 'application' } | { about: 'surge'; accounts: number };

export type Notice = ReportNotice | DoorNotice;

export interface Notifier {
  send(notice: Notice): void;
  stats(): NotifyStats;
  stop(): Promise<void>;
}

export interface NotifyStats {
  messages: { sent: number; failed: number };
  notices: { alone: number; coalesced: number; unsent: number };
}

export interface NotifyOptions {
  timeoutMs?: number;
  backoffMs?: number;
  gapMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** At most 3 tries per message: a webhook that is down for a minute must not pile up work. */
export const notifyTries = 3;
/** Open reports on one entry that are worth a second message: enough people agree that it cannot wait. */
export const notifyManyReports = 5;
/** A message with several entries names this many of them; the rest are in the moderation's queue. */
const addressesShown = 5;

interface Tally {
  notices: number;
  reported: number;
  many: number;
  first: ReportNotice[];
  applications: number;
  surges: number;
  surgeAccounts: number;
}

const emptyTally = (): Tally => ({
  notices: 0,
  reported: 0,
  many: 0,
  first: [],
  applications: 0,
  surges: 0,
  surgeAccounts: 0,
});

function merged(older: Tally, newer: Tally): Tally {
  return {
    notices: older.notices + newer.notices,
    reported: older.reported + newer.reported,
    many: older.many + newer.many,
    first: [...older.first, ...newer.first].slice(0, addressesShown),
    applications: older.applications + newer.applications,
    surges: older.surges + newer.surges,
    surgeAccounts: newer.surges ? newer.surgeAccounts : older.surgeAccounts,
  };
}

function doorText(origin: string, tally: Tally): string {
  const surge = tally.surges
    ? `Ansturm auf die Registrierung: ${tally.surgeAccounts} neue Konten in kurzer Zeit; neue Konten warten jetzt auf eine Freischaltung.`
    : '';
  const waiting = tally.applications
    ? `${tally.applications === 1 ? 'Ein neuer Antrag wartet' : `${tally.applications} neue Anträge warten`} auf die Freischaltung.`
    : '';
  return [surge, waiting, `${origin}/mod`].filter(Boolean).join(' ');
}

const entries = (n: number) => (n === 1 ? '1 Beitrag' : `${n} Beiträge`);

function notifyText(origin: string, tally: Tally): string {
  const reportNotices = tally.notices - tally.applications - tally.surges;
  if (reportNotices === 0) return doorText(origin, tally);
  const door = tally.applications || tally.surges ? ` ${doorText(origin, tally)}` : '';
  return reportText(origin, { ...tally, notices: reportNotices }) + door;
}

function reportText(origin: string, tally: Tally): string {
  const address = (notice: ReportNotice) =>
    `${origin}/e/${notice.pid}${notice.instance ? ` (gemeldet von ${notice.instance})` : ''}`;
  const [notice] = tally.first;
  if (tally.notices === 1 && notice) {
    return notice.openReports === 1
      ? `Neue Meldung im Board: ${address(notice)}`
      : `${notifyManyReports} offene Meldungen zu einem Beitrag im Board: ${address(notice)}`;
  }
  const counts = [
    tally.reported ? `${entries(tally.reported)} neu gemeldet` : '',
    tally.many ? `${entries(tally.many)} mit ${notifyManyReports} offenen Meldungen` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const more = tally.notices > tally.first.length ? ' …' : '';
  return `Meldungen im Board seit der letzten Nachricht: ${counts}. ${tally.first.map(address).join(' ')}${more} Alle offenen Meldungen: ${origin}/mod`;
}

export function startNotifier(url: string, origin: string, log: Log, options: NotifyOptions = {}): Notifier {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const backoffMs = options.backoffMs ?? 2_000;
  const gapMs = options.gapMs ?? 60_000;
  const wait = options.sleep ?? sleep;
  const stopping = new AbortController();
  const stats: NotifyStats = { messages: { sent: 0, failed: 0 }, notices: { alone: 0, coalesced: 0, unsent: 0 } };
  let waiting = emptyTally();
  let sending: Tally | undefined;
  let running: Promise<void> = Promise.resolve();
  let busy = false;

  async function deliver(text: string): Promise<boolean> {
    for (let attempt = 1; attempt <= notifyTries; attempt++) {
      const failure = await tryOnce(text);
      if (!failure) return true;
      if (stopping.signal.aborted) return false;
      if (attempt === notifyTries) {
        log(`notify: ${failure}; gave up after ${notifyTries} tries; the next message counts its reports`);
        return false;
      }
      log(`notify: ${failure}; trying again (${attempt + 1} of ${notifyTries})`);
      await wait(backoffMs * 2 ** (attempt - 1), stopping.signal);
    }
    return false;
  }

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

  function settle(message: Tally, delivered: boolean): void {
    if (!delivered) {
      stats.messages.failed++;
      waiting = merged(message, waiting);
      return;
    }
    stats.messages.sent++;
    if (message.notices === 1) stats.notices.alone++;
    else stats.notices.coalesced += message.notices;
  }

  /**
   * One message at a time and a gap after each, until nothing waits. After a message given up,
   * the sender rests until a new notice comes: a dead webhook costs nothing while nobody reports.
   */
  async function work(): Promise<void> {
    busy = true;
    try {
      while (waiting.notices > 0 && !stopping.signal.aborted) {
        const message = (sending = waiting);
        waiting = emptyTally();
        const delivered = await deliver(notifyText(origin, message));
        sending = undefined;
        if (stopping.signal.aborted) break;
        const rest = !delivered && waiting.notices === 0;
        settle(message, delivered);
        if (rest) break;
        await wait(gapMs, stopping.signal);
      }
    } finally {
      busy = false;
    }
  }

  return {
    send(notice) {
      if (stopping.signal.aborted) return;
      if ('about' in notice) {
        const surge = notice.about === 'surge';
        waiting = merged(waiting, {
          ...emptyTally(),
          notices: 1,
          applications: surge ? 0 : 1,
          surges: surge ? 1 : 0,
          surgeAccounts: surge ? notice.accounts : 0,
        });
        if (!busy) running = work();
        return;
      }
      const many = notice.openReports === notifyManyReports ? 1 : 0;
      waiting = merged(waiting, { ...emptyTally(), notices: 1, reported: 1 - many, many, first: [notice] });
      if (!busy) running = work();
    },
    stats: () => structuredClone(stats),
    async stop() {
      const unsent = waiting.notices + (sending?.notices ?? 0);
      stopping.abort();
      if (unsent) log(`notify: stopping; ${unsent} reports not sent`);
      stats.notices.unsent += unsent;
      waiting = emptyTally();
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

/**
 * After a stored report: a notice when the entry got its first open report, and again when its open
 * reports reach notifyManyReports. A message carries only entries' addresses (and the server of a
 * report from another one), never a text or a reporter.
 */
export function announceReports(
  app: { notifier?: Pick<Notifier, 'send'> },
  pid: number,
  openReports: number,
  instance = '',
): void {
  if (openReports === 1 || openReports === notifyManyReports)
    app.notifier?.send(instance ? { pid, openReports, instance } : { pid, openReports });
}
