/**
 * Times and numbers on the server's pages, for German readers. A page is cached for every visitor
 * until a write changes it, so it shows the absolute date ("27. November 2026, 14:05", in the
 * board's zone Europe/Berlin) and never "vor 5 Minuten", which would go stale in the cache; the
 * front end replaces it with the relative time once it has drawn the page.
 */

const dateTimeFormat = new Intl.DateTimeFormat('de-DE', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'Europe/Berlin',
});
const dateFormat = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'Europe/Berlin' });
const numberFormat = new Intl.NumberFormat('de-DE');

/** Unix seconds → "27. November 2026 um 14:05". */
export function germanDateTime(seconds: number): string {
  return dateTimeFormat.format(new Date(seconds * 1000));
}

/** Unix seconds → "27. November 2026". */
export function germanDate(seconds: number): string {
  return dateFormat.format(new Date(seconds * 1000));
}

/** Unix seconds → the ISO form for <time datetime>. */
export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

/** 12345 → "12.345". */
export function germanNumber(n: number): string {
  return numberFormat.format(n);
}
