/**
 * The board's pace for inbox traffic (docs/API.md "What comes in", "The pace"): a refusal of an
 * instance's activity is held a moment before it goes, and only a few activities of one instance
 * are verified at once, in turns fair between instances. Why: a server that ignores Retry-After
 * sends again as soon as it has its answer, so without a pace its flood takes every turn of the
 * board's event loop however cheap each answer is. Both are this process's memory.
 */

/**
 * A refusal is held `holdMs`; at most `held…` at once (past them it goes at once and closes its
 * connection). At most `verifying…` activities are verified at once and `waiting…` wait for a turn
 * (past them: 429 with a Retry-After of `busyRetrySeconds`).
 */
export const inboxPace = {
  holdMs: 1000,
  heldPerInstance: 64,
  heldInAll: 1024,
  verifyingPerInstance: 4,
  verifyingInAll: 16,
  waitingPerInstance: 32,
  waitingInAll: 256,
  busyRetrySeconds: 1,
} as const;

export interface InboxPaceOptions {
  hold?: (instance: string) => Promise<void>;
}

export interface InboxPace {
  /**
   * Holds a refusal of `instance`'s activity; false when too many are held already (answer it at
   * once, closing the connection, so the sender pays for a new one).
   */
  holdRefusal(instance: string): Promise<boolean>;
  /**
   * Waits for a turn to verify one of `instance`'s activities; the returned function ends the turn
   * and must be called. Undefined when too many wait already (refuse it).
   */
  verificationTurn(instance: string): Promise<(() => void) | undefined>;
}

/** An instance's activities verifying, and those waiting, each given its turn's end once it has one. */
interface Line {
  verifying: number;
  waiting: ((end: () => void) => void)[];
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createInboxPace(options: InboxPaceOptions = {}): InboxPace {
  const hold = options.hold ?? (() => wait(inboxPace.holdMs));
  const held = new Map<string, number>();
  let heldInAll = 0;
  const lines = new Map<string, Line>();
  let verifying = 0;
  let waiting = 0;

  async function holdRefusal(instance: string): Promise<boolean> {
    const now = held.get(instance) ?? 0;
    if (now >= inboxPace.heldPerInstance || heldInAll >= inboxPace.heldInAll) return false;
    held.set(instance, now + 1);
    heldInAll++;
    try {
      await hold(instance);
    } finally {
      const left = held.get(instance)! - 1;
      if (left > 0) held.set(instance, left);
      else held.delete(instance);
      heldInAll--;
    }
    return true;
  }

  function start(instance: string, line: Line): () => void {
    line.verifying++;
    verifying++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      line.verifying--;
      verifying--;
      if (!line.verifying && !line.waiting.length) lines.delete(instance);
      serveNext();
    };
  }

  /** Gives free turns round the lines (the one served last moves to the end): one turn each before anyone's second. */
  function serveNext(): void {
    while (verifying < inboxPace.verifyingInAll) {
      const next = [...lines].find(
        ([, line]) => line.waiting.length && line.verifying < inboxPace.verifyingPerInstance,
      );
      if (!next) return;
      const [instance, line] = next;
      lines.delete(instance);
      lines.set(instance, line);
      waiting--;
      line.waiting.shift()!(start(instance, line));
    }
  }

  async function verificationTurn(instance: string): Promise<(() => void) | undefined> {
    let line = lines.get(instance);
    if (!line) {
      line = { verifying: 0, waiting: [] };
      lines.set(instance, line);
    }
    if (!line.waiting.length && line.verifying < inboxPace.verifyingPerInstance && verifying < inboxPace.verifyingInAll)
      return start(instance, line);
    if (line.waiting.length >= inboxPace.waitingPerInstance || waiting >= inboxPace.waitingInAll) {
      if (!line.verifying && !line.waiting.length) lines.delete(instance);
      return undefined;
    }
    const mine = line;
    waiting++;
    return new Promise((resolve) => mine.waiting.push(resolve));
  }

  return { holdRefusal, verificationTurn };
}
