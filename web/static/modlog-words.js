// The words of the moderation log, written once for every place that shows it: the page the
// server draws without scripts (lib/pages/views/modlog.ts), the front end's (views/modlog.js) and
// `board-admin modlog` (bin/commands/reports.ts). Why one module: the two pages were written
// apart, and the drawn one showed the raw action names ("approve", "registration") the other had
// words for. A sentence is text and links; each page draws the links its own way.

/**
 * A link in a sentence: to an account's profile, or to an entry ("Beitrag #12").
 * @typedef {{ user: string } | { entry: number }} LogLink
 */

/** @typedef {string | LogLink} LogPart */

/**
 * A row of the public log (docs/API.md "GET /api/modlog/{page}").
 * @typedef {{ action: string, pid: number, username: string, reason: string, until: number }} LogRow
 */

/**
 * The registration modes in German, as the log and the moderators' switch name them (the setting
 * BOARD_REGISTRATION and the API take the English values).
 */
export const registrationModeNames = Object.freeze({
  open: 'offen',
  approval: 'mit Freischaltung',
  invite: 'nur mit Einladung',
  closed: 'geschlossen',
});

/**
 * A mode's German name; an unknown one as it is.
 * @param {string} mode
 */
export function registrationModeName(mode) {
  /** @type {Readonly<Record<string, string | undefined>>} */
  const names = registrationModeNames;
  return names[mode] ?? mode;
}

/**
 * The reason a registration change is logged with: the mode, and after ": " what switched it
 * ("approval: 31 neue Konten in 60 Minuten"); read back by registrationChange.
 * @param {string} mode
 * @param {string} [note]
 */
export function registrationReason(mode, note) {
  return note ? `${mode}: ${note}` : mode;
}

/**
 * A registration change's logged reason as its mode and its note ("" when none).
 * @param {string} reason
 * @returns {{ mode: string, note: string }}
 */
export function registrationChange(reason) {
  const at = reason.indexOf(': ');
  return at === -1 ? { mode: reason, note: '' } : { mode: reason.slice(0, at), note: reason.slice(at + 2) };
}

/**
 * An instance decision's logged reason (lib/federation/instances.ts changeInstance): the instance,
 * then ": " and the note when there is one. A host's port has no space after its colon.
 * @param {string} reason
 * @returns {{ host: string, note: string }}
 */
export function instanceChange(reason) {
  const { mode, note } = registrationChange(reason);
  return { host: mode, note };
}

/**
 * "dauerhaft gesperrt" or "gesperrt bis 03.03.2026, 14:05" for a banned_until.
 * @param {number} until
 * @param {(seconds: number) => string} dateTime the page's own date format
 */
export function banWords(until, dateTime) {
  return until === -1 ? 'dauerhaft gesperrt' : `gesperrt bis ${dateTime(until)}`;
}

/**
 * What happened, as a German sentence of text and links. It names no moderator: the board
 * speaks as "die Moderation".
 * @param {LogRow} row
 * @param {(seconds: number) => string} dateTime the page's own date format (a ban's end)
 * @returns {LogPart[]}
 */
export function modlogSentence(row, dateTime) {
  /** @type {LogPart} */
  const account = row.username ? { user: row.username } : 'einem gelöschten Konto';
  /** @type {LogPart[]} */
  const entry = [{ entry: row.pid }, ...(row.username ? [' von ', { user: row.username }] : [])];
  switch (row.action) {
    case 'remove':
      return [...entry, ' entfernt'];
    case 'restore':
      return [...entry, ' wiederhergestellt'];
    case 'dismiss':
      return ['Meldungen zu ', ...entry, ' verworfen'];
    case 'ban':
      return [row.username ? { user: row.username } : 'Ein Konto', ` ${banWords(row.until, dateTime)}`];
    case 'unban':
      return ['Sperre von ', account, ' aufgehoben'];
    case 'avatar_remove':
      return ['Avatar von ', account, ' entfernt'];
    case 'approve':
      return ['Konto ', row.username || 'eines Antrags', ' freigeschaltet'];
    case 'reject':
      return ['Antrag von ', row.username || 'einem Konto', ' abgelehnt'];
    case 'registration': {
      const { mode } = registrationChange(row.reason);
      return [`Registrierung auf „${registrationModeName(mode)}“ umgestellt`];
    }
    case 'instance_allow':
      return [`Instanz ${instanceChange(row.reason).host} für die Föderation zugelassen`];
    case 'instance_block':
      return [`Instanz ${instanceChange(row.reason).host} gesperrt`];
    case 'instance_unblock':
      return [`Entscheidung über die Instanz ${instanceChange(row.reason).host} aufgehoben`];
    default:
      return ['Eine Entscheidung der Moderation'];
  }
}

/**
 * The reason shown under the sentence: a registration change shows only what switched it (its
 * mode is in the sentence), every other row its reason as given.
 * @param {LogRow} row
 */
export function modlogReason(row) {
  if (row.action === 'registration') return registrationChange(row.reason).note;
  return row.action.startsWith('instance_') ? instanceChange(row.reason).note : row.reason;
}
