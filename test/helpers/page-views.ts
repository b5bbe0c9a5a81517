import type { TestBoard } from './board.ts';

/**
 * How many view notices for `path` (a proxy's X-Board-View: mirror, lib/http/page-views.ts) the
 * board has written to its log so far: they are counted in lines of a second each,
 * `GET /e/42 204 view x17`. A test that waits until this reaches the number it sent knows every
 * notice was answered, and counted, before it reads the statistics.
 */
export function noticesLogged(board: TestBoard, path: string): number {
  const line = `GET ${path} 204 view x`;
  return board.logs
    .filter((logged) => logged.startsWith(line) && /^\d+$/.test(logged.slice(line.length)))
    .reduce((sum, logged) => sum + Number(logged.slice(line.length)), 0);
}
