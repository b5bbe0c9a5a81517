import { readFile } from 'node:fs/promises';
import { join, normalize, posix } from 'node:path';
import { init, parse } from 'es-module-lexer';
import { html, type Html } from '../text/html.ts';

/**
 * The front end's module graph, read from its own import statements when the process starts
 * (docs/API.md "First load"): every page names every module as <link rel="modulepreload">, so the
 * browser asks for all of them at once instead of finding each only when the module importing it
 * has arrived (a chain of round trips, one per level of imports). No build step: the files are
 * the same the browser loads, and es-module-lexer (what Vite uses) reads their imports.
 */

/** A bound on the walk, far above the front end's module count. */
const maxModules = 500;

export async function moduleGraph(staticDir: string, entry: string): Promise<string[]> {
  await init;
  const seen = new Set([posix.normalize(entry)]);
  const queue = [...seen];
  for (let i = 0; i < queue.length; i++) {
    const file = queue[i]!;
    const source = await readFile(join(staticDir, normalize(file)), 'utf8');
    const [imports] = parse(source, file);
    for (const { specifier } of imports) {
      if (!specifier?.startsWith('./') && !specifier?.startsWith('../')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), specifier));
      if (target.startsWith('..') || seen.has(target)) continue;
      if (seen.size >= maxModules) throw new Error(`web/static: more than ${maxModules} modules`);
      seen.add(target);
      queue.push(target);
    }
  }
  return queue;
}

export function preloadTags(modules: readonly string[], prefix: string): Html {
  return html`${modules.slice(1).map((file) => html`<link rel="modulepreload" href="${prefix}${file}">\n  `)}`;
}
