import assert from 'node:assert/strict';
import type { Document, Element } from 'domhandler';
import { DomHandler, DomUtils, Parser } from 'htmlparser2';
import { flushImpressions } from '../../lib/stats/impressions.ts';
import type { TestBoard } from './board.ts';

const { findAll, findOne, getAttributeValue, textContent } = DomUtils;

/**
 * Parses an Atom document with htmlparser2 in XML mode and checks what RFC 4287 requires: a
 * well-formed document (no element left open, no stray text outside the root), a <feed>
 * with id, title and updated, and every <entry> with id, title, updated and an author (its own or
 * the feed's). Returns the document for the test's own checks.
 */
export function parseAtom(xml: string): Document {
  let implied = 0;
  const handler = new DomHandler();
  const parser = new Parser(
    {
      ...handler,
      onclosetag(_name: string, isImplied: boolean) {
        if (isImplied) implied++;
        handler.onclosetag();
      },
      onopentag: handler.onopentag.bind(handler),
      ontext: handler.ontext.bind(handler),
      onprocessinginstruction: handler.onprocessinginstruction.bind(handler),
      onend: handler.onend.bind(handler),
      onerror: (err: Error) => assert.fail(err),
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  // htmlparser2 reports a self-closed element's end as implied too; any other implied end is a missing close tag.
  assert.equal(implied, xml.split('/>').length - 1, 'every element is closed explicitly');
  assert.match(xml, /^<\?xml version="1\.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/);
  const doc = handler.root;
  const feed = findOne((el) => el.name === 'feed', doc.children)!;
  assert.ok(feed, 'a <feed> root');
  const own = (parent: Element, name: string) =>
    parent.children.filter((c): c is Element => (c as Element).name === name);
  for (const name of ['id', 'title', 'updated']) assert.equal(own(feed, name).length, 1, `feed has one <${name}>`);
  assert.match(textContent(own(feed, 'updated')[0]!), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  for (const entry of own(feed, 'entry')) {
    for (const name of ['id', 'title', 'updated']) assert.equal(own(entry, name).length, 1, `entry has one <${name}>`);
    assert.ok(own(entry, 'author').length + own(feed, 'author').length >= 1, 'an author');
    for (const author of own(entry, 'author')) assert.equal(own(author, 'name').length, 1, 'author has a <name>');
  }
  return doc;
}

export interface AtomEntry {
  id: string;
  title: string;
  author: string;
  content: string;
  link: string;
  enclosure?: { href: string; type: string };
}

/** The entries of a parsed feed, in order. */
export function atomEntries(doc: Document): AtomEntry[] {
  return findAll((el) => el.name === 'entry', doc.children).map((entry) => {
    const child = (name: string) => entry.children.find((c): c is Element => (c as Element).name === name);
    const links = entry.children.filter((c): c is Element => (c as Element).name === 'link');
    const enclosure = links.find((l) => getAttributeValue(l, 'rel') === 'enclosure');
    return {
      id: textContent(child('id')!),
      title: textContent(child('title')!),
      author: textContent(findOne((el) => el.name === 'name', child('author')!.children)!),
      content: textContent(child('content')!),
      link: getAttributeValue(links.find((l) => getAttributeValue(l, 'rel') === 'alternate')!, 'href')!,
      ...(enclosure
        ? { enclosure: { href: getAttributeValue(enclosure, 'href')!, type: getAttributeValue(enclosure, 'type')! } }
        : {}),
    };
  });
}

/** Impressions counted so far (flushed first), for "no impression counted". */
export function impressionsSoFar(board: TestBoard): number {
  flushImpressions(board.app.services);
  return board.app.services.db.value('SELECT coalesce(sum(impressions), 0) FROM daily_stats');
}
