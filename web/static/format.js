// Times, durations, lengths and links, formatted for German readers.

const relative = new Intl.RelativeTimeFormat('de', { numeric: 'auto' });
const dateFormat = new Intl.DateTimeFormat('de', { dateStyle: 'long' });
const dateTimeFormat = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeStyle: 'short' });
const numberFormat = new Intl.NumberFormat('de');
// The drawn pages' dates (markup/): a page the server draws is the same for every reader and kept
// in its cache, so it names one zone, the board's, and never "vor 5 Minuten", which would go stale.
const boardZone = 'Europe/Berlin';
const boardDateFormat = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: boardZone });
const boardDateTimeFormat = new Intl.DateTimeFormat('de-DE', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: boardZone,
});

/** @type {[Intl.RelativeTimeFormatUnit, number][]} */
const units = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['week', 7 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

/**
 * Unix seconds → "vor 5 Minuten", "gestern", "gerade eben".
 * @param {number} seconds
 * @param {number} [now]
 */
export function relativeTime(seconds, now = Date.now() / 1000) {
  const diff = seconds - now;
  if (Math.abs(diff) < 60) return 'gerade eben';
  for (const [unit, size] of units) {
    if (Math.abs(diff) >= size) return relative.format(Math.trunc(diff / size), unit);
  }
  return 'gerade eben';
}

/**
 * Seconds from now → "in 23 Stunden", "in 2 Tagen" (rounded up, so it never promises too early).
 * @param {number} seconds
 */
export function inDuration(seconds) {
  for (const [unit, size] of units) {
    if (seconds >= size) return relative.format(Math.ceil(seconds / size), unit);
  }
  return relative.format(Math.max(1, Math.ceil(seconds / 60)), 'minute');
}

/**
 * Unix seconds → "3. März 2026".
 * @param {number} seconds
 */
export function longDate(seconds) {
  return dateFormat.format(new Date(seconds * 1000));
}

/**
 * Unix seconds → "03.03.2026, 14:05".
 * @param {number} seconds
 */
export function dateTime(seconds) {
  return dateTimeFormat.format(new Date(seconds * 1000));
}

/**
 * Unix seconds → "27. November 2026" in the board's zone.
 * @param {number} seconds
 */
export function boardDate(seconds) {
  return boardDateFormat.format(new Date(seconds * 1000));
}

/**
 * Unix seconds → "27. November 2026 um 14:05" in the board's zone.
 * @param {number} seconds
 */
export function boardDateTime(seconds) {
  return boardDateTimeFormat.format(new Date(seconds * 1000));
}

/**
 * Unix seconds → ISO string for <time datetime>.
 * @param {number} seconds
 */
export function isoTime(seconds) {
  return new Date(seconds * 1000).toISOString();
}

/**
 * 12345 → "12.345".
 * @param {number} n
 */
export function number(n) {
  return numberFormat.format(n);
}

/**
 * A count with its noun in the right number: (1, 'Registrierung', 'Registrierungen') → "1 Registrierung",
 * (1234, …) → "1.234 Registrierungen".
 * @param {number} n
 * @param {string} one
 * @param {string} many
 */
export function counted(n, one, many) {
  return `${number(n)} ${n === 1 ? one : many}`;
}

/**
 * Length in Unicode code points: the unit the API counts in.
 * @param {string} text
 */
export function codePoints(text) {
  let n = 0;
  for (const _ of text) n += 1;
  return n;
}

/** What a link is on this board, for the server (lib/text/links.ts) and the front end alike. */
export const linkSource = 'https?:\\/\\/[^\\s<>"]+';
/** A link's trailing punctuation belongs to the sentence, not the link. */
export const trailingPunctuation = /[.,;:!?)\]}'"]+$/;

/**
 * Splits text into plain strings and {url} parts for every http(s) link, trailing punctuation
 * trimmed.
 * @param {string} text
 */
export function splitLinks(text) {
  /** @type {(string | { url: string })[]} */
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(new RegExp(linkSource, 'gi'))) {
    const url = match[0].replace(trailingPunctuation, '');
    if (match.index > last) parts.push(text.slice(last, match.index));
    parts.push({ url });
    last = match.index + url.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/**
 * A short label for an entry in breadcrumbs and titles: "Anna: Hallo Welt …".
 * @param {Api.Entry} entry
 * @param {number} [max]
 */
export function excerpt(entry, max = 40) {
  const who = entry.username || 'gelöschtes Konto';
  if (entry.deleted) return `${who}: (${entry.removed ? 'entfernt' : 'gelöscht'})`;
  const chars = [...entry.content.replace(/\s+/g, ' ').trim()];
  const text =
    chars.length === 0 ? '(Bild)' : chars.length > max ? `${chars.slice(0, max).join('')} …` : chars.join('');
  return `${who}: ${text}`;
}
