import { maxQueryTerms } from './search/query.ts';

/** German messages for every error code the API answers (docs/API.md "Errors"). */
export const messages = {
  'api.not_found': 'Diese Adresse gibt es nicht.',
  'api.method_not_allowed': 'Diese Methode ist hier nicht erlaubt.',
  'auth.required': 'Bitte melde dich an.',
  'auth.bad_credentials': 'Benutzername oder Passwort ist falsch.',
  'auth.bad_password': 'Das Passwort ist falsch.',
  'auth.invalid': 'Bitte prüfe die markierten Felder.',
  'auth.banned': 'Dieses Konto ist gesperrt.',
  'csrf.bad_origin': 'Anfrage von fremder Herkunft abgelehnt.',
  'tor.blocked': 'Beiträge über das Tor-Netzwerk sind nicht möglich.',
  'entry.not_found': 'Diesen Beitrag gibt es nicht.',
  'entry.empty': 'Der Beitrag ist leer: bitte Text oder ein Bild angeben.',
  'entry.too_long': 'Der Beitrag ist länger als 1000 Zeichen.',
  'entry.not_author': 'Nur die Autorin oder der Autor darf diesen Beitrag ändern.',
  'entry.bump_cooldown': 'Dieser Beitrag kann noch nicht wieder hochgeholt werden.',
  'entry.duplicate': 'Diesen Text hast du eben schon gepostet: bitte nicht doppelt.',
  'entry.too_deep': 'Diese Antwort wäre zu tief verschachtelt: höchstens 200 Ebenen unter dem ersten Beitrag.',
  'vote.invalid_mode': 'Ungültige Stimme: erlaubt sind „yes“ und „no“.',
  'report.too_long': 'Die Begründung ist länger als 500 Zeichen.',
  'report.not_found': 'Zu diesem Beitrag gibt es keine offene Meldung.',
  'mod.required': 'Das ist nur für die Moderation.',
  'mod.not_removed': 'Dieser Beitrag ist nicht von der Moderation entfernt.',
  'mod.not_banned': 'Dieses Konto ist nicht gesperrt.',
  'mod.no_avatar': 'Dieses Konto hat keinen Avatar.',
  'mod.target_moderator': 'Moderatorinnen und Moderatoren kann nur die Administration sperren.',
  'session.not_found': 'Diese Anmeldung gibt es nicht.',
  'reset.invalid': 'Dieser Link ist ungültig, abgelaufen oder schon benutzt.',
  'user.name_taken': 'Dieser Name ist schon vergeben oder einem vergebenen zum Verwechseln ähnlich.',
  'user.not_found': 'Diese Person gibt es nicht.',
  'input.invalid': 'Ungültige Eingabe.',
  'input.unsupported_type': 'Dieses Format wird nicht unterstützt: bitte Formulardaten senden.',
  'input.too_large': 'Die Anfrage ist zu groß.',
  'upload.bad_type': 'Nur Bilder im Format JPEG, GIF, PNG oder WebP sind erlaubt.',
  'upload.too_large': 'Die Datei ist zu groß.',
  'rate.limited': 'Zu viele Anfragen. Bitte warte einen Moment.',
  'rate.new_account': 'Neue Konten können in den ersten 10 Minuten keine Links oder Bilder posten.',
  'auth.busy': 'Der Server ist gerade ausgelastet. Bitte versuche es in ein paar Sekunden noch einmal.',
  'search.busy': 'Die Suche ist gerade ausgelastet. Bitte versuche es in ein paar Sekunden noch einmal.',
  internal: 'Interner Fehler. Bitte versuche es später noch einmal.',
  'server.disk_full': 'Der Speicher des Servers ist voll. Bitte versuche es später noch einmal.',
} as const satisfies Record<string, string>;

/** An error code the API answers: a typo in a thrown ApiError is a type error, not "Interner Fehler" at run time. */
export type ErrorCode = keyof typeof messages;

/** Field-level messages, used in error.fields (registration) and for a single error.field. */
export const fieldMessages = {
  username:
    'Der Name muss 3 bis 32 Zeichen lang sein: Buchstaben, Ziffern, Punkt, Unterstrich, Leerzeichen und Bindestrich.',
  passwordShort: 'Das Passwort muss mindestens 10 Zeichen lang sein.',
  passwordMismatch: 'Die Passwörter stimmen nicht überein.',
  required: 'Dieses Feld fehlt.',
  notInteger: 'Hier wird eine ganze Zahl erwartet.',
  outOfRange: 'Dieser Wert liegt außerhalb des erlaubten Bereichs.',
  pidList: 'Erwartet werden 1 bis 100 Beitragsnummern, durch Kommas getrennt.',
  passwordLong: 'Das Passwort darf höchstens 1024 Zeichen lang sein.',
  loginTimeout: 'Die Dauer muss eine ganze Zahl von Sekunden zwischen 60 und 31536000 sein.',
  imageRequired: 'Bitte ein Bild auswählen.',
  modReason: 'Bitte einen Grund mit 1 bis 500 Zeichen angeben.',
  modReasonLong: 'Der Grund darf höchstens 500 Zeichen lang sein.',
  banDays: 'Die Dauer muss eine ganze Zahl von 1 bis 3650 Tagen sein; leer lassen für dauerhaft.',
  purgeFlag: 'Erlaubt ist nur „1“ (alle Beiträge entfernen) oder nichts.',
  muteSelf: 'Du kannst dich nicht selbst stummschalten.',
  muteLimit: 'Du kannst höchstens 1000 Konten stummschalten.',
  searchQuery: 'Bitte einen Suchbegriff mit 1 bis 200 Zeichen eingeben.',
  searchTerms: `Bitte höchstens ${maxQueryTerms} Suchwörter eingeben; eine Wortfolge in Anführungszeichen zählt als eines.`,
  altLong: 'Die Bildbeschreibung darf höchstens 300 Zeichen lang sein.',
} as const;

/** More specific messages for input.invalid when the request itself, not one field, is at fault. */
export const requestMessages = {
  badRequest: 'Ungültige Anfrage.',
  aborted: 'Die Anfrage wurde abgebrochen.',
  badFormData: 'Ungültige Formulardaten.',
} as const;
