import { maxShortWord, searchableText, shortWordTerm } from '../text/search-terms.ts';

/**
 * `q` of GET /api/search/{page} as an FTS5 expression (docs/API.md "Search"). `q` is taken
 * literally: there is no query syntax, every word is quoted as an FTS5 string (its own double
 * quotes doubled). The one exception is a pair of double quotes, which makes the text between
 * them one term (a phrase); a quote without a partner is an ordinary character.
 *
 * A term of 3 characters or more matches as a substring of the text (case-insensitive, so
 * "kraftwerk" finds "Balkonkraftwerke"), with its German umlaut spelling as an alternative
 * ("Strasse" also finds "Straße", "Müller" also "Mueller"). A shorter term matches its words of
 * letters and digits as whole words ("KI" finds "KI" and "KI-Modell", not "Kino"): as substrings
 * two letters would match nearly every entry. An entry matches when it holds every term.
 */

export function queryTerms(q: string): string[] {
  const text = searchableText(q);
  const quotes = [...text.matchAll(/"/g)].map((match) => match.index);
  const terms: string[] = [];
  const words = (part: string) => terms.push(...part.split(/\s+/u).filter(Boolean));
  let rest = 0;
  // An odd count leaves the last quote without a partner: it stays in its word as a character.
  for (let i = 0; i + 1 < quotes.length; i += 2) {
    words(text.slice(rest, quotes[i]));
    const phrase = text
      .slice(quotes[i]! + 1, quotes[i + 1])
      .trim()
      .replace(/\s+/gu, ' ');
    if (phrase) terms.push(phrase);
    rest = quotes[i + 1]! + 1;
  }
  words(text.slice(rest));
  return terms;
}

function ftsString(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

const toDigraph: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue' };
const toUmlaut: Record<string, string> = { ae: 'ä', oe: 'ö', ue: 'ü', ss: 'ß' };

export function germanSpellings(term: string): string[] {
  const spellings = new Set([term]);
  spellings.add(term.replace(/[äöüßÄÖÜ]/g, (c) => toDigraph[c]!));
  spellings.add(term.replace(/ae|oe|ue|ss/gi, (pair) => toUmlaut[pair.toLowerCase()]!));
  return [...spellings];
}

const wordPattern = /[\p{L}\p{M}\p{N}]+/gu;

function termExpression(term: string): string | undefined {
  if ([...term].length > maxShortWord) {
    const spellings = germanSpellings(term).map((spelling) => `text : ${ftsString(spelling)}`);
    return spellings.length === 1 ? spellings[0] : `(${spellings.join(' OR ')})`;
  }
  const words = [...term.matchAll(wordPattern)].map(
    ([word]) => `short : ${ftsString(shortWordTerm(word.toLowerCase()))}`,
  );
  return words.length ? words.join(' AND ') : undefined;
}

export function termsExpression(terms: readonly string[]): string {
  return terms
    .map(termExpression)
    .filter((e) => e !== undefined)
    .join(' AND ');
}

export function searchExpression(q: string): string {
  return termsExpression(queryTerms(q));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Where the terms of q stand in a text, for marking them on the drawn /suche page: each term in
 * each German spelling, longer ones anywhere, those of 1–2 characters as whole words. The same
 * pattern as wordsPattern in web/static/components/highlight.js, so both mark alike.
 */
export function termsPattern(q: string): RegExp | undefined {
  const parts = queryTerms(q)
    .flatMap(germanSpellings)
    .map((term) =>
      [...term].length <= maxShortWord
        ? `(?<![\\p{L}\\p{N}])${escapeRegExp(term)}(?![\\p{L}\\p{N}])`
        : escapeRegExp(term),
    );
  return parts.length ? new RegExp(parts.sort((a, b) => b.length - a.length).join('|'), 'giu') : undefined;
}
