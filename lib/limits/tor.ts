import { readFileSync, statSync } from 'node:fs';
import { canonicalIp } from '../ip/address.ts';

/**
 * The Tor exit addresses from BOARD_TOR_EXITS (docs/OPERATIONS.md "Tor exit list").
 * Why (docs/API.md "POST /api/entry/create"): creating an entry from a Tor exit answers 403 `tor.blocked`, so a
 * spammer cannot get a fresh address (and fresh per-IP limits) by switching circuits. Only
 * create is blocked; reading, voting and the rest stay open to Tor users.
 */
export interface TorExitList {
  /** True when ip is a listed exit address. O(1). */
  has(ip: string): boolean;
}

/**
 * Opens the exit list file: one address per line, `#` comments, blank lines ignored.
 * A missing file is an empty list. The file is re-read when its stat changes (checked at most
 * once per `recheckMs` on a lookup), so `board-admin tor-refresh` takes effect without a restart;
 * a file that cannot be read or has a line that is not an address keeps the previous list.
 */
export function openTorExitList(path: string, options: { recheckMs?: number } = {}): TorExitList {
  const recheckMs = options.recheckMs ?? 2000;
  let addresses = new Set<string>();
  let loadedStamp: string | undefined;

  function refresh(): void {
    const stat = statSync(path, { throwIfNoEntry: false });
    // Why ctime too: it moves on chmod, so a file made readable again is retried.
    const stamp = stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : 'missing';
    if (stamp === loadedStamp) return;
    if (!stat) {
      addresses = new Set();
      loadedStamp = stamp;
      return;
    }
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return; // unreadable: keep the old list and try again at the next check
    }
    loadedStamp = stamp; // a file that does not parse is not parsed again until it changes
    addresses = parseExitList(text) ?? addresses;
  }

  refresh();
  let lastCheck = performance.now();
  return {
    has(ip) {
      const now = performance.now();
      if (now - lastCheck >= recheckMs) {
        lastCheck = now;
        refresh();
      }
      const key = canonicalIp(ip.trim());
      return key !== undefined && addresses.has(key);
    },
  };
}

/** The addresses of a list file in canonical text (one spelling per address), or undefined when a line is not an address (e.g. a half-written file). */
function parseExitList(text: string): Set<string> | undefined {
  const found = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const key = canonicalIp(line);
    if (key === undefined) return undefined;
    found.add(key);
  }
  return found;
}
