/**
 * The terms of the search index (lib/search/index.ts) and of queries (lib/search/query.ts): pure
 * functions of text, shared by the index, the queries and the migration that reindexes entries.
 */

const wordPattern = /[\p{L}\p{M}\p{N}]+/gu;
export const maxShortWord = 2;

/** Text as indexed and searched: NFC, so a decomposed "ü" (u + U+0308) finds a composed one. */
export function searchableText(text: string): string {
  return text.normalize('NFC');
}

export function shortWordTerm(word: string): string {
  return '_'.repeat(3 - [...word].length) + word;
}

export function shortWordTerms(text: string): string {
  const terms = new Set<string>();
  for (const [word] of searchableText(text).matchAll(wordPattern)) {
    if ([...word].length <= maxShortWord) terms.add(shortWordTerm(word.toLowerCase()));
  }
  return [...terms].join(' ');
}

/** Private-use code points: no case, no diacritics, never in the other columns' queries. */
const privateUseStart = 0xe000;
const privateUseSize = 6400;

/** A uid as one 3-character term: base 6400 in private-use code points, room for more accounts than any board has. */
export function authorTerm(uid: number): string {
  const digit = (n: number) => String.fromCharCode(privateUseStart + (Math.floor(n) % privateUseSize));
  return digit(uid) + digit(uid / privateUseSize) + digit(uid / privateUseSize ** 2);
}

/**
 * What the `text` column holds for an entry: its text and, on a line of its own, its image's
 * description. Why the description: it says what the image shows in words, and a reader looking
 * for that picture searches for those words (Mastodon's search does the same with media
 * descriptions).
 */
export function indexedText(entry: { content: string; alt: string }): string {
  return searchableText(entry.alt ? `${entry.content}\n${entry.alt}` : entry.content);
}

export function indexRow(entry: {
  pid: number;
  uid: number;
  content: string;
  alt: string;
}): [number, string, string, string] {
  const text = indexedText(entry);
  return [entry.pid, text, shortWordTerms(text), authorTerm(entry.uid)];
}

export const indexRowSql = 'INSERT INTO search (rowid, text, short, author) VALUES (?, ?, ?, ?)';
