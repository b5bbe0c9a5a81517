import { fileURLToPath } from 'node:url';
import type { Route } from '../http/route.ts';
import { pageParams } from './shell.ts';

/**
 * The front end's page list (web/static/pages.js) from the route table: the rows whose endpoint
 * answers with the page shell (`shell`), each with the pattern of the addresses it covers, so the
 * front end draws a view exactly where the server sends the shell. app.js keys its views by these
 * paths (`Record<PagePath, View>`: `make typecheck` fails on a page without a view or a view
 * without a page). test/unit/front-end-pages.test.ts checks the file is current;
 * `make front-end-files` writes it again (lib/front-end-files.ts).
 */

export const frontEndPagesFile = fileURLToPath(new URL('../../web/static/pages.js', import.meta.url));

/** `/e/:pid` → `^\/e\/(\d{1,15})$`: a parameter is one segment, narrowed where the page narrows it (pageParams). */
export function addressPattern(path: string): string {
  const segments = path.split('/').map((segment) => {
    if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const narrowed = pageParams[segment.slice(1)];
    return `(${narrowed ? narrowed.source.replace(/^\^|\$$/g, '') : '[^/]+'})`;
  });
  return `^${segments.join('\\/')}$`;
}

export const shellRoutes = (table: readonly Route[]): Route[] =>
  table.filter((route) => route.method === 'GET' && route.handler.shell);

export function frontEndPages(table: readonly Route[]): string {
  const shell = shellRoutes(table);
  return [
    '// Written by lib/pages/front-end-pages.ts from the route table (lib/routes.ts); do not edit.',
    '',
    '/**',
    ' * A page of the front end: a path of the route table whose answer is the page shell (it is the key of',
    ' * its view in app.js).',
    ` * @typedef {${shell.map((route) => `'${route.path}'`).join(' | ')}} PagePath`,
    ' */',
    '',
    '/**',
    ' * The pages, each with the pattern of the addresses the server answers with it: one group per path',
    ' * parameter, narrowed as the server narrows it (else its 404 page).',
    ' * @type {readonly { path: PagePath, pattern: RegExp }[]}',
    ' */',
    'export const pages = [',
    ...shell.map((route) => `  { path: '${route.path}', pattern: /${addressPattern(route.path)}/ },`),
    '];',
    '',
  ].join('\n');
}
