import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { anchorOf } from '../../lib/api/api-reference.ts';

/**
 * The documents link to each other (README, CONTRIBUTING, docs/, bench/), and comments, tests and
 * deploy files cite their sections by name (`docs/API.md "Rate limits"`): every relative link must
 * reach a file of the repository, a link with an #anchor a heading of that file, and a citation a
 * section of the file it names, so a section that moves cannot leave a dead reference behind.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const documents = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...readdirSync(join(root, 'bench'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `bench/${f}`),
];

/** The text outside code: fenced blocks and inline code may show link-like text that is no link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = anchorOf(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

/** Each file's anchors, read once: docs/API.md alone is the target of hundreds of links. */
const anchorsRead = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let found = anchorsRead.get(file);
  if (!found) anchorsRead.set(file, (found = anchors(readFileSync(file, 'utf8'))));
  return found;
}

/** Relative link targets of a document: Markdown links and images, and HTML src/href attributes. */
function targets(markdown: string): string[] {
  const text = prose(markdown);
  const links = [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  const attributes = [...text.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  return [...links, ...attributes].filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

test('every relative link in the documents reaches a file, and every #anchor a heading of it', () => {
  const broken: string[] = [];
  for (const document of documents) {
    const markdown = readFileSync(join(root, document), 'utf8');
    for (const target of targets(markdown)) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(root, document) : join(root, dirname(document), decodeURIComponent(path));
      if (!relative(root, file) || relative(root, file).startsWith('..') || !existsSync(file)) {
        broken.push(`${document}: ${target} (no such file)`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith('.md') || statSync(file).isDirectory()) {
        broken.push(`${document}: ${target} (an anchor into a file that has no headings)`);
        continue;
      }
      if (!anchorsOf(file).has(anchor)) broken.push(`${document}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

/**
 * Files that cite sections: the code, tests, tools, deploy files and the current documents (not
 * bench/'s dated history).
 */
function citingFiles(dir = ''): string[] {
  const skip = new Set(['node_modules', '.node', '.git', 'data', 'fixtures', 'screenshots', 'bench']);
  const out: string[] = [];
  for (const name of readdirSync(join(root, dir))) {
    const path = dir ? `${dir}/${name}` : name;
    if (skip.has(name) && !(name === 'bench' && dir === '')) continue;
    if (statSync(join(root, path)).isDirectory()) out.push(...citingFiles(path));
    else if (/\.(ts|mjs|js|md|html|service|timer|env|conf)$|^(Caddyfile|Makefile|board-admin|run)$/.test(name)) {
      if (!(path.startsWith('bench/') && path.endsWith('.md'))) out.push(path);
    }
  }
  return out;
}

/**
 * Section names a file can be cited by: its headings, and the labels of its lists and paragraphs
 * ("- Log:", "Uploads and images").
 */
const sectionsRead = new Map<string, string[]>();
function sections(file: string): string[] {
  let found = sectionsRead.get(file);
  if (!found) sectionsRead.set(file, (found = sectionsIn(file)));
  return found;
}

function sectionsIn(file: string): string[] {
  const lines = readFileSync(join(root, file), 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .split('\n');
  return lines.flatMap((line) => {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading) return [heading.trim()];
    const label = /^(?:- )?([A-Z][^.:]{0,40}):/.exec(line)?.[1] ?? /^([A-Z][\w ]{0,40})$/.exec(line)?.[1];
    return label ? [label] : [];
  });
}

test('every section a file cites by name (README "Settings", docs/API.md "Rate limits") exists', () => {
  const broken: string[] = [];
  const citation = /(?<![\w/.-])(README|CONTRIBUTING\.md|docs\/[A-Z]+\.md|[A-Z]+\.md)(?:\.md)?,?\s+"([^"\n]+)"/g;
  for (const file of citingFiles()) {
    for (const [whole, named, section] of readFileSync(join(root, file), 'utf8').matchAll(citation)) {
      let document = named === 'README' ? 'README.md' : named!;
      if (!document.includes('/') && !['README.md', 'CONTRIBUTING.md'].includes(document)) {
        document = `${dirname(file)}/${document}`.replace(/^\.\//, '');
      }
      if (!existsSync(join(root, document))) broken.push(`${file}: ${whole} (no such file)`);
      else if (!sections(document).some((s) => s === section || s.startsWith(section!)))
        broken.push(`${file}: ${whole} (no such section)`);
    }
  }
  assert.deepEqual(broken, []);
});

test('a heading gets the anchor GitHub gives it', () => {
  assert.equal(
    anchorOf('From a fresh Debian server to a running board behind TLS'),
    'from-a-fresh-debian-server-to-a-running-board-behind-tls',
  );
  assert.equal(anchorOf('GET /api/entry/{pid}/thread'), 'get-apientrypidthread');
  assert.equal(anchorOf('Backups, and `verify`'), 'backups-and-verify');
  assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n### A b\n')], ['a', 'a-1', 'a-b']);
});
