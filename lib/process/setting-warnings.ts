import { ConfigError, loadConfig, type Config } from '../config.ts';
import { isLoopbackAddress } from '../ip/ranges.ts';

/**
 * Refuses a variable that looks like a setting but is none: any BOARD_* name, or a name within
 * two typos of one (BORAD_ORIGIN; a typo is a letter changed, added or dropped, or two neighbours
 * swapped), in any letter case; the ConfigError's one line names the nearest setting. Why an
 * error and not a warning: a misspelt setting is silently ignored, so BOARD_REGISTRATON=invite
 * would open an invite-only board to everyone. server.ts and bin/cli.ts call it before loadConfig.
 * `alsoKnown`: variables of the board's own that loadConfig does not read (the cluster's worker
 * number).
 */
export function checkSettingNames(env: Record<string, string | undefined>, alsoKnown: readonly string[] = []): void {
  const known = [...readSettings(), ...alsoKnown];
  const unknown: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (known.includes(name)) continue;
    const upper = name.toUpperCase();
    const ours = upper.startsWith('BOARD_');
    const nearest = nearestName(upper, known, ours ? Infinity : 2);
    if (!ours && nearest.distance > 2) continue;
    unknown.push(`${name} is not a setting; did you mean ${nearest.name}?`);
  }
  if (unknown.length > 0) throw new ConfigError(unknown.join(' '));
}

/**
 * What the start says about settings that are valid but most likely wrong, one line each (the board
 * starts anyway): BOARD_TRUST_PROXY=1 with a loopback BOARD_ORIGIN, so reset links, feeds and share
 * pages would name localhost.
 */
export function settingWarnings(config: Config): string[] {
  const warnings: string[] = [];
  if (config.trustProxy && isLocalOrigin(config.origin)) {
    warnings.push(
      `BOARD_TRUST_PROXY=1 says the board is behind a proxy, but BOARD_ORIGIN is ${config.origin}: reset links, feeds and share pages name that address; set BOARD_ORIGIN to the board's public address`,
    );
  }
  // Other servers fetch and verify over https only; plain http works between test boards on loopback.
  if (config.federation !== 'off' && !config.origin.startsWith('https:')) {
    warnings.push(
      `BOARD_FEDERATION=${config.federation} with BOARD_ORIGIN ${config.origin}: other servers reach a board over https only; set an https BOARD_ORIGIN (plain http is for test boards on loopback)`,
    );
  }
  return warnings;
}

let settingNames: string[] | undefined;

/** The BOARD_* variables loadConfig reads: found by letting it read an empty environment, so the list is never kept by hand. */
function readSettings(): string[] {
  if (settingNames) return settingNames;
  const read = new Set<string>();
  loadConfig(
    new Proxy({} as Record<string, string | undefined>, {
      get(_, name) {
        if (typeof name === 'string') read.add(name);
        return undefined;
      },
    }),
  );
  settingNames = [...read].filter((name) => name.startsWith('BOARD_'));
  return settingNames;
}

function isLocalOrigin(origin: string): boolean {
  const host = new URL(origin).hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || isLoopbackAddress(host);
}

function nearestName(name: string, known: readonly string[], bound: number): { name: string; distance: number } {
  let best = { name: known[0]!, distance: Infinity };
  for (const candidate of known) {
    const distance = editDistance(name, candidate, bound);
    if (distance < best.distance) best = { name: candidate, distance };
  }
  return best;
}

function editDistance(a: string, b: string, bound: number): number {
  if (Math.abs(a.length - b.length) > bound) return bound + 1;
  let before = new Int32Array(b.length + 1);
  let previous = Int32Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Int32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current[j] = d;
      rowBest = Math.min(rowBest, d);
    }
    if (rowBest > bound) return bound + 1;
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length]!;
}
