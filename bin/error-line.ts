import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * The one line for an error nobody planned for (a bug, a package that is not installed): its
 * name, its message's first line and where in the board's code it was thrown. An operator reads
 * one line in a journal or a cron mail; a stack would bury it, and the place is what a bug report needs.
 */
export function unexpectedErrorLine(err: unknown): string {
  if (!(err instanceof Error)) return `unexpected error: ${String(err)}`;
  const message = err.message.split('\n')[0];
  if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
    return `${message}; are the dependencies installed? (npm ci --omit=dev in ${projectRoot})`;
  const place = err.stack
    ?.split('\n')
    .map((frame) => /\((?:file:\/\/)?(\/[^)]+)\)$|^\s*at (?:file:\/\/)?(\/\S+)$/.exec(frame))
    .map((match) => match?.[1] ?? match?.[2])
    .find((file) => file?.startsWith(projectRoot) && !file.includes('/node_modules/'));
  return `unexpected ${err.name}: ${message}${place ? ` (at ${relative(projectRoot, place)})` : ''}`;
}
