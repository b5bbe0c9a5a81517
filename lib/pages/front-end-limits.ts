import { fileURLToPath } from 'node:url';
import { mediaFormats } from '../media/files.ts';
import * as product from '../product.ts';

/**
 * The product limits as the front end imports them (web/static/limits.js): written from
 * lib/product.ts, so the page's counters, hints and paging use the server's numbers and
 * never a copy kept by hand. Why a file and not an answer built at start: the front end stays
 * plain files that run without a build step, `make typecheck` checks the imports of it like any
 * other module, and a browser test or a unit test loads it as the page does.
 * test/unit/front-end-limits.test.ts checks the file is current and equal to the server's values;
 * `node --import tsx lib/pages/front-end-limits.ts` writes it again.
 */

export const frontEndLimitsFile = fileURLToPath(new URL('../../web/static/limits.js', import.meta.url));

/** Every product limit, and the image types an upload may have (the `accept` of a file input). */
export function frontEndLimits(): Record<string, number | string> {
  const imageTypes = Object.values(mediaFormats)
    .map((format) => format.type)
    .join(',');
  return { ...product, imageTypes };
}

/** A string as a single-quoted JavaScript literal (the formatter's quote style). */
function quoted(text: string): string {
  return `'${JSON.stringify(text).slice(1, -1).replaceAll('\\"', '"').replaceAll("'", "\\'")}'`;
}

/** The whole module: one exported constant per limit, in name order. */
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
