import { html, toText, type Html } from '../text/html.ts';
import { germanDate, germanDateTime } from '../text/german.ts';
import type { AccountData, EntryJson, ExportSource, Pages, ReportJson } from './export.ts';
import { moderatorRole } from '../accounts/users.ts';

/**
 * The readable part of the data export: account.json is for programs, with Unix times; beside it
 * a person gets `uebersicht.html` (everything account.json holds, a section for each of its
 * members, to open in any browser, images linked to the zip's media/ folder) and `beitraege.csv`
 * (one row per entry, for a spreadsheet). Both are streamed a page of rows at a time like
 * account.json, with German dates in the board's zone (Europe/Berlin).
 */

function entryState(entry: EntryJson): string {
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

let csvLoaded: Promise<typeof import('csv-stringify/sync')> | undefined;
const loadCsvStringify = () => (csvLoaded ??= import('csv-stringify/sync'));

/**
 * beitraege.csv: semicolons and a byte-order mark, as German spreadsheets expect; csv-stringify
 * quotes every field that needs it and defuses text that a spreadsheet would run as a formula
 * (`=`, `+`, `-`, `@` at the start), since entries are anyone's text.
 */
export async function* readableEntriesCsv(data: AccountData): AsyncGenerator<Buffer> {
  const { stringify } = await loadCsvStringify();
  const options = { delimiter: ';', escape_formulas: true, record_delimiter: 'windows' } as const;
  yield Buffer.from(stringify([csvColumns], { ...options, bom: true }));
  for (const rows of data.entries()) {
    const records = rows.map((e) => [
      e.pid,
      germanDateTime(e.created_at),
      e.reply_to || '',
      e.content,
      e.filepath ? `media/${e.filepath}` : '',
      e.alt ?? '',
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

interface Section<T> {
  heading: string;
  draw(part: T, links: EntryLinks): Iterable<Html>;
}

interface EntryLinks {
  entry(pid: number): Html;
}

/**
 * A section for every member of account.json: the type makes a new member fail to compile until
 * it has its section here, and the export's test checks the file itself.
 */
const sections: { [K in keyof AccountData]: Section<AccountData[K]> } = {
  user: {
    heading: 'Dein Konto',
    *draw(user) {
      yield html`<dl>
<dt>Name</dt><dd>${user.username}</dd>
<dt>Mitglied seit</dt><dd>${germanDateTime(user.created_at)}</dd>
${user.last_login ? html`<dt>Zuletzt angemeldet</dt><dd>${germanDateTime(user.last_login)}</dd>\n` : null}${
  user.role ? html`<dt>Rolle</dt><dd>${user.role === moderatorRole ? 'Moderation' : user.role}</dd>\n` : null
}${
  user.trust_level === undefined
    ? null
    : html`<dt>Vertrauensstufe</dt><dd>${user.trust_level === 0 ? '0 (neues Konto)' : String(user.trust_level)}</dd>\n`
}<dt>Profilbild</dt><dd>${user.avatar ? html`<img src="media/${user.avatar}" alt="Dein Profilbild" width="96">` : 'keines'}</dd>
</dl>
`;
    },
  },
  entries: {
    heading: 'Deine Beiträge',
    draw: (entries) =>
      listOf(
        entries,
        'Noch keine Beiträge.',
        (e) => {
          const replies = e.reply_count === 1 ? '1 Antwort' : `${e.reply_count} Antworten`;
          return html`<article id="e${e.pid}">
<p class="meta">Nr. ${e.pid}, ${germanDateTime(e.created_at)}${e.reply_to ? ` – Antwort auf Nr. ${e.reply_to}` : ''} – ${entryState(e)}${
            e.reply_count ? ` – ${replies}` : ''
          }</p>
${e.content ? html`<p class="text">${e.content}</p>` : null}${
  e.filepath ? html`<p><img src="media/${e.filepath}" alt="${e.alt || 'Bild'}"></p>` : null
}
</article>
`;
        },
        'articles',
      ),
  },
  votes: {
    heading: 'Deine Stimmen',
    draw: (votes, links) =>
      listOf(
        votes,
        'Du hast noch nicht abgestimmt.',
        (vote) =>
          html`<li>${links.entry(vote.pid)}: <strong>${vote.mode === 'yes' ? 'Ja' : 'Nein'}</strong>, am ${germanDateTime(vote.created_at)}</li>\n`,
      ),
  },
  reports: {
    heading: 'Deine Meldungen',
    draw: (reports, links) =>
      listOf(
        reports,
        'Du hast noch nichts gemeldet.',
        (report) =>
          html`<li>${links.entry(report.pid)}, gemeldet am ${germanDateTime(report.created_at)}${
            report.reason ? html` mit dem Grund „${report.reason}“` : ' ohne Grund'
          } – ${reportState(report)}</li>\n`,
      ),
  },
  sessions: {
    heading: 'Deine Anmeldungen',
    draw: (sessions) =>
      listOf(
        sessions,
        'Keine.',
        (session) =>
          html`<li><strong>${session.device}</strong>${session.current ? ' (diese Anmeldung hat die Daten heruntergeladen)' : ''}: angemeldet am ${germanDateTime(session.created_at)}, gültig bis ${germanDateTime(session.expires)}${
            session.push
              ? ` – Push-Benachrichtigungen über ${session.push.service} seit ${germanDateTime(session.push.created_at)}`
              : ''
          }<br><small>${session.description || 'ohne Browserkennung'}</small></li>\n`,
      ),
  },
  passkeys: {
    heading: 'Deine Passkeys',
    draw: (passkeys) =>
      listOf(
        passkeys,
        'Du hast keinen Passkey angelegt.',
        (passkey) =>
          html`<li><strong>${passkey.name}</strong>: angelegt am ${germanDateTime(passkey.created_at)}, ${
            passkey.last_used ? `zuletzt benutzt am ${germanDateTime(passkey.last_used)}` : 'noch nie benutzt'
          }</li>\n`,
      ),
  },
  following: {
    heading: 'Beiträge, denen du folgst',
    draw: (following, links) =>
      listOf(
        following,
        'Du folgst keinem Beitrag.',
        (follow) => html`<li>${links.entry(follow.pid)}, seit ${germanDateTime(follow.created_at)}</li>\n`,
      ),
  },
};

function reportState(report: ReportJson): string {
  if (!report.closed_at) return 'offen';
  const outcome = report.closed_action === 'remove' ? 'der Beitrag wurde entfernt' : 'abgewiesen';
  return `geschlossen am ${germanDateTime(report.closed_at)}: ${outcome}`;
}

function* listOf<T>(
  pages: Pages<T>,
  empty: string,
  item: (row: T) => Html,
  form: 'list' | 'articles' = 'list',
): Generator<Html> {
  const list = form === 'list';
  let any = false;
  for (const rows of pages()) {
    yield html`${list && !any ? html`<ul>\n` : null}${rows.map(item)}`;
    any = true;
  }
  if (!any) yield html`<p>${empty}</p>\n`;
  else if (list) yield html`</ul>\n`;
}

function* section<K extends keyof AccountData>(key: K, data: AccountData, links: EntryLinks): Generator<Buffer> {
  const { heading, draw } = sections[key];
  yield Buffer.from(toText(html`<section id="${key}">\n<h2>${heading}</h2>\n`));
  for (const part of draw(data[key], links)) yield Buffer.from(toText(part));
  yield Buffer.from('</section>\n');
}

export function* readableOverview(
  data: AccountData,
  { origin, now }: Pick<ExportSource, 'origin' | 'now'>,
): Generator<Buffer> {
  const { user } = data;
  const links: EntryLinks = { entry: (pid) => html`<a href="${origin}/e/${pid}">Beitrag Nr. ${pid}</a>` };
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
<p>Dieselben Daten für Programme stehen in <code>account.json</code>, deine Beiträge als Tabelle in <code>beitraege.csv</code>, deine Bilder im Ordner <code>media/</code>.</p>
`),
  );
  for (const key of Object.keys(data) as (keyof AccountData)[]) yield* section(key, data, links);
  yield Buffer.from('</body>\n</html>\n');
}
