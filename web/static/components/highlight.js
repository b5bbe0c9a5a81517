// The words of a search and their pattern, for marking them (<mark>) the way the server matched them
// (markup/entry.js marks them in the drawn text).

/**
 * The words of a search as the server reads them (queryTerms in lib/search/query.ts): the text
 * between a pair of double quotes is one phrase, a quote without a partner an ordinary
 * character, everything else splits at white space; case never matters.
 * @param {string} asked
 */
export function searchWords(asked) {
  const q = asked.normalize('NFC'); // as searchableText: a decomposed "ü" finds a composed one
  const quotes = [...q.matchAll(/"/g)].map((match) => match.index);
  /** @type {string[]} */
  const words = [];
  /** @param {string} part */
  const split = (part) => words.push(...part.split(/\s+/u));
  let rest = 0;
  for (let i = 0; i + 1 < quotes.length; i += 2) {
    const open = /** @type {number} */ (quotes[i]);
    const close = /** @type {number} */ (quotes[i + 1]);
    split(q.slice(rest, open));
    words.push(
      q
        .slice(open + 1, close)
        .trim()
        .replace(/\s+/gu, ' '),
    );
    rest = close + 1;
  }
  split(q.slice(rest));
  return words.map((w) => w.toLowerCase()).filter((w) => w.length > 0);
}

/** @param {string} text */
function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** @type {Record<string, string>} */
const toDigraph = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' };
/** @type {Record<string, string>} */
const toUmlaut = { ae: 'ä', oe: 'ö', ue: 'ü', ss: 'ß' };

/**
 * A word and its other German spelling, umlauts as digraphs or digraphs as umlauts, because the
 * server finds both ("strasse" finds "Straße"; germanSpellings in lib/search/query.ts, the same
 * rule: this file runs in the browser and cannot import the server's).
 * @param {string} word
 */
function germanSpellings(word) {
  return [
    ...new Set([
      word,
      word.replace(/[äöüßÄÖÜ]/g, (c) => toDigraph[c] ?? c),
      word.replace(/ae|oe|ue|ss/gi, (pair) => toUmlaut[pair.toLowerCase()] ?? pair),
    ]),
  ];
}

/**
 * One pattern for every word in each spelling: long words anywhere (they find compounds), 1–2 letters as whole words only.
 * @param {string[]} words
 */
export function wordsPattern(words) {
  const parts = words
    .flatMap(germanSpellings)
    .map((w) => ([...w].length <= 2 ? `(?<![\\p{L}\\p{N}])${escapeRegExp(w)}(?![\\p{L}\\p{N}])` : escapeRegExp(w)));
  return parts.length ? new RegExp(parts.sort((a, b) => b.length - a.length).join('|'), 'giu') : null;
}
