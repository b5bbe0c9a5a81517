import assert from 'node:assert/strict';
import { test } from 'node:test';
import { termsPattern } from '../../lib/search/query.ts';

/**
 * The drawn /suche marks a search's terms (termsPattern, lib/search/query.ts) where the front end
 * marks them (searchWords and wordsPattern, web/static/components/highlight.js): the same matches
 * in the same places, so the page does not change its marks when the front end takes over.
 */
const modulePath: string = '../../web/static/components/highlight.js';
const front = (await import(modulePath)) as {
  searchWords: (q: string) => string[];
  wordsPattern: (words: string[]) => RegExp | null;
};

const queries = [
  'Kaffee',
  'kaffee markt',
  '"guten Kaffee" Markt',
  'Strasse',
  'Straße',
  'Mueller',
  'KI',
  'a',
  '<script> & "quo\'tes"',
  '"unbalanced quote',
  '(.*) [a-z]+ $1',
  'u\u0308ber', // a decomposed "über"
  '""',
  '   ',
];

const texts = [
  'Wo gibt es guten Kaffee? Im Café am Markt, Kaffeemarkt.',
  'Die Straße heißt Hauptstrasse, bei Müller und Mueller.',
  'KI-Modell, Kino, KI und ki; a b abc',
  'Vorsicht <script>alert("x")</script> & "quo\'tes" too',
  'Regex (.*) [a-z]+ $1 bleibt Text',
  'über Ueber uber',
  'https://example.org/kaffee?markt=1',
];

const spots = (text: string, pattern: RegExp | null | undefined) =>
  pattern ? [...text.matchAll(pattern)].filter((m) => m[0] !== '').map((m) => `${m.index}:${m[0]}`) : [];

test('the server marks the same spots as the front end for every query and text', () => {
  for (const q of queries) {
    for (const text of texts) {
      assert.deepEqual(
        spots(text, termsPattern(q)),
        spots(text, front.wordsPattern(front.searchWords(q))),
        `q=${JSON.stringify(q)} in ${JSON.stringify(text)}`,
      );
    }
  }
});

const found = (text: string, q: string) => spots(text, termsPattern(q)).map((spot) => spot.replace(/^\d+:/, ''));

test('the marks find what the search finds: compounds, both German spellings, short words whole', () => {
  assert.deepEqual(found(texts[0]!, 'kaffee markt'), ['Kaffee', 'Markt', 'Kaffee', 'markt']);
  assert.deepEqual(found(texts[1]!, 'strasse mueller'), ['Straße', 'strasse', 'Müller', 'Mueller']);
  assert.deepEqual(found(texts[2]!, 'KI'), ['KI', 'KI', 'ki']);
  assert.deepEqual(found(texts[5]!, 'u\u0308ber'), ['über', 'Ueber']);
  assert.equal(termsPattern('   '), undefined);
});
