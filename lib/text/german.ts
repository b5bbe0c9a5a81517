/**
 * Times and numbers on the server's pages, for German readers. A cached page shows the absolute
 * date in the board's zone (Europe/Berlin), never "vor 5 Minuten", which would go stale in the
 * cache; the front end puts in the relative time once it has drawn the page.
 */

const dateTimeFormat = new Intl.DateTimeFormat('de-DE', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'Europe/Berlin',
});
const dateFormat = new Intl.DateTimeFormat('de-DE', { dateStyle: 'long', timeZone: 'Europe/Berlin' });
const numberFormat = new Intl.NumberFormat('de-DE');

export function germanDateTime(seconds: number): string {
  return dateTimeFormat.format(new Date(seconds * 1000));
}

export function germanDate(seconds: number): string {
  return dateFormat.format(new Date(seconds * 1000));
}

export function isoTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

export function germanNumber(n: number): string {
  return numberFormat.format(n);
}
