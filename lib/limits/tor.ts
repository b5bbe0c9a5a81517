import { readFileSync, statSync } from 'node:fs';
import { canonicalIp } from '../ip/address.ts';

/**
 * The Tor exit addresses from BOARD_TOR_EXITS (docs/OPERATIONS.md "Tor exit list").
 * Why (docs/API.md "POST /api/entry/create"): creating an entry from a Tor exit answers 403 `tor.blocked`, so a
 * spammer cannot get a fresh address (and fresh per-IP limits) by switching circuits. Only
 * create is blocked; reading, voting and the rest stay open to Tor users.
 */
export interface TorExitList {
  has(ip: string): boolean;
}

/**
 * Opens the exit list file (one address per line, `#` comments); a missing file is an empty list.
 * It is read again when its stat changes, so `board-admin tor-refresh` needs no restart; a file
 * that cannot be read or holds a line that is not an address keeps the previous list.
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
      return;
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
