import { stringify } from 'csv-stringify/sync';
import { html, toText } from '../pages/html.ts';
import { germanDate, germanDateTime } from '../pages/views/format.ts';
import { type ExportedEntry, type ExportSource, pagesOf, readEntries } from './export.ts';

/**
 * The readable part of the data export (issue 32): account.json is for programs, with Unix times;
 * beside it a person gets `uebersicht.html` (the account and every entry, to open in any browser,
 * images linked to the zip's media/ folder) and `beitraege.csv` (one row per entry, for a
 * spreadsheet). Both are streamed a page of rows at a time like account.json, with German dates
 * in the board's zone (Europe/Berlin).
 */

/** What became of an entry, in words. */
function entryState(entry: ExportedEntry): string {
  if (entry.removed) return `von der Moderation entfernt (${entry.removed_reason})`;
  return entry.deleted ? 'gelöscht' : 'sichtbar';
}

const csvColumns = [
  'Nr.',
  'Geschrieben',
  'Antwort auf Nr.',
  'Text',
  'Bild',
  'Bildbeschreibung',
  'Antworten',
  'Hochgeholt',
  'Zustand',
];

/**
 * beitraege.csv: semicolons and a byte-order mark, as German spreadsheets expect; csv-stringify
 * quotes every field that needs it and defuses text that a spreadsheet would run as a formula
 * (`=`, `+`, `-`, `@` at the start), since entries are anyone's text.
 */
export function* readableEntriesCsv(source: ExportSource): Generator<Buffer> {
  const options = { delimiter: ';', escape_formulas: true, record_delimiter: 'windows' } as const;
  yield Buffer.from(stringify([csvColumns], { ...options, bom: true }));
  for (const rows of pagesOf(
    source.recheck,
    (after) => readEntries(source.db, source.uid, after),
    (e) => e.pid,
  )) {
    const records = rows.map((e) => [
      e.pid,
      germanDateTime(e.created_at),
      e.reply_to || '',
      e.content,
      e.filepath ? `media/${e.filepath}` : '',
      e.alt,
      e.reply_count,
      e.bump_count,
      entryState(e),
    ]);
    yield Buffer.from(stringify(records, options));
  }
}

const style =
  'body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;line-height:1.5}' +
  'article{border-top:1px solid #ccc;padding:.5rem 0}p.meta{color:#555;margin:0}p.text{white-space:pre-wrap}' +
  'img{max-width:100%;height:auto}';

/** uebersicht.html: the account, then every entry oldest first; no script, every value escaped (lib/pages/html.ts). */
export function* readableOverview(source: ExportSource): Generator<Buffer> {
  const { user, now } = source;
  yield Buffer.from(
    toText(html`<!doctype html>
<html lang="de">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Deine Daten auf Das Board: ${user.username}</title>
<style>${style}</style>
</head>
<body>
<h1>Deine Daten auf Das Board</h1>
<p>Konto <strong>${user.username}</strong>, Mitglied seit ${germanDate(user.created_at)}. Erstellt am ${germanDateTime(now)}.</p>
<p>Alles für Programme steht in <code>account.json</code>, deine Beiträge als Tabelle in <code>beitraege.csv</code>, deine Bilder im Ordner <code>media/</code>.</p>
<h2>Deine Beiträge</h2>
`),
  );
  let any = false;
  for (const rows of pagesOf(
    source.recheck,
    (after) => readEntries(source.db, source.uid, after),
    (e) => e.pid,
  )) {
    any = true;
    yield Buffer.from(
      toText(
        html`${rows.map(
          (e) => html`<article id="e${e.pid}">
<p class="meta">Nr. ${e.pid}, ${germanDateTime(e.created_at)}${e.reply_to ? ` – Antwort auf Nr. ${e.reply_to}` : ''} – ${entryState(e)}${
            e.reply_count ? ` – ${e.reply_count === 1 ? '1 Antwort' : `${e.reply_count} Antworten`}` : ''
          }</p>
${e.content ? html`<p class="text">${e.content}</p>` : null}${
  e.filepath ? html`<p><img src="media/${e.filepath}" alt="${e.alt || 'Bild'}"></p>` : null
}
</article>
`,
        )}`,
      ),
    );
  }
  yield Buffer.from(
    toText(html`${any ? null : html`<p>Noch keine Beiträge.</p>`}</body>
</html>
`),
  );
}
