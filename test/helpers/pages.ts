import assert from 'node:assert/strict';
import { DomUtils, parseDocument } from 'htmlparser2';
import type { AnyNode, Element, Text } from 'domhandler';
import type { TestBoard } from './board.ts';
import { assertDocumented } from './openapi.ts';
import { visitor } from './members.ts';

/** A server-drawn page (docs/API.md "Pages without JavaScript") as a visitor gets it, parsed: the API tests of the pages. */

export interface Page {
  status: number;
  text: string;
  /** The text of <main>, whitespace collapsed. */
  main: string;
  all(selector: (el: Element) => boolean): Element[];
  links(rel: string): string[];
}

const isMark = (n: AnyNode | null) => n?.type === 'tag' && (n as Element).name === 'mark';

/**
 * An element's text with a space between elements, whitespace collapsed (as a reader sees the
 * words); none around a <mark>, which marks a search's match inside a word ("Kaffee<mark>markt</mark>").
 */
export function textOf(node: AnyNode): string {
  const words: string[] = [];
  const walk = (n: AnyNode) => {
    if (n.type === 'text') words.push((n as Text).data);
    else if ('children' in n) for (const child of n.children) walk(child as AnyNode);
    const joined = isMark(n) || (n.type === 'text' && (isMark(n.parent) || isMark(n.next)));
    if (!joined) words.push(' ');
  };
  walk(node);
  return words.join('').replace(/\s+/g, ' ').trim();
}

export const byClass = (name: string) => (el: Element) => (el.attribs.class ?? '').split(' ').includes(name);

/** GET `path` as a visitor: the status, documented, HTML under the page CSP, parsed. */
export async function drawnPage(board: TestBoard, path: string, status = 200): Promise<Page> {
  const answer = await visitor(board).get(path);
  assert.equal(answer.status, status, `${path}: ${answer.text.slice(0, 200)}`);
  assertDocumented(answer);
  assert.match(answer.headers.get('content-type')!, /^text\/html; charset=utf-8/);
  assert.match(answer.headers.get('content-security-policy')!, /default-src 'self'/);
  const doc = parseDocument(answer.text);
  const main = DomUtils.findOne((el) => el.name === 'main', doc.children)!;
  return {
    status: answer.status,
    text: answer.text,
    main: textOf(main),
    all: (selector) => DomUtils.findAll(selector, doc.children),
    links: (rel) =>
      DomUtils.findAll((el) => (el.name === 'link' || el.name === 'a') && el.attribs.rel === rel, doc.children).map(
        (el) => el.attribs.href!,
      ),
  };
}

/** The only <script> any page has is the shell's own module: no text became a script. */
export function assertOnlyShellScript(p: Page) {
  const scripts = p.all((el) => el.name === 'script');
  assert.equal(scripts.length, 1);
  assert.match(scripts[0]!.attribs.src!, /^\/static\/v\/[0-9a-f]{16}\/main\.js$/);
  assert.equal(
    p.all((el) => Object.keys(el.attribs).some((name) => name.startsWith('on'))).length,
    0,
    'no event handler attribute',
  );
}
