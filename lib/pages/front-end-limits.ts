import { fileURLToPath } from 'node:url';
import { mediaFormats } from '../media/files.ts';
import * as product from '../product.ts';

/**
 * The product limits as the front end imports them (web/static/limits.js), written from
 * lib/product.ts so the page never keeps a copy by hand. Why a file, not an answer built at start:
 * the front end stays plain files without a build step, which `make typecheck` and the tests load
 * as the page does. test/unit/front-end-limits.test.ts checks it is current; `make front-end-files`
 * writes it again.
 */

export const frontEndLimitsFile = fileURLToPath(new URL('../../web/static/limits.js', import.meta.url));

export function frontEndLimits(): Record<string, number | string> {
  const imageTypes = Object.values(mediaFormats)
    .map((format) => format.type)
    .join(',');
  return { ...product, imageTypes };
}

function quoted(text: string): string {
  return `'${JSON.stringify(text).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}

export function frontEndLimitsModule(): string {
  const lines = Object.entries(frontEndLimits())
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => {
      if (typeof value === 'number' && !Number.isFinite(value))
        throw new Error(`front-end limits: ${name} is not finite`);
      return `export const ${name} = ${typeof value === 'string' ? quoted(value) : String(value)};`;
    });
  return [
    '// Written by lib/pages/front-end-limits.ts from lib/product.ts (what each limit means and why is',
    '// there); do not edit. The server checks every one itself; the page uses them for counters,',
    '// hints, paging and the accepted image types.',
    '',
    ...lines,
    '',
  ].join('\n');
}
