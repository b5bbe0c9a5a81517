import { readFileSync } from 'node:fs';

/** The oldest Node the board runs on: package.json's "engines" (">=X.Y") is the one place that says it. */
export const minimumNode = /^>=([\d.]+)$/.exec(
  (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } })
    .engines.node,
)![1]!;

/**
 * The one line for an operator whose Node is older than the minimum, else undefined. Why a check
 * of our own: better-sqlite3 13 asks for Node-API 10 (Node 22.14), and an older Node does not
 * refuse it but dies of a segmentation fault when the first database opens.
 */
export function nodeTooOld(version: string = process.versions.node, minimum: string = minimumNode): string | undefined {
  const have = version.split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < need.length; i++) {
    const a = have[i] ?? 0;
    const b = need[i]!;
    if (a !== b)
      return a > b
        ? undefined
        : `Node ${version} is too old: the board needs Node ${minimum} or later (README "Quick start" says how to get one)`;
  }
  return undefined;
}
