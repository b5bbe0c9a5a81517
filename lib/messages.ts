import {
  inviteLifetimeSeconds,
  maxAltLength,
  maxBanDays,
  maxBulkPids,
  maxContentLength,
  maxEndpointLength,
  maxFollows,
  maxGifFrames,
  maxGifPixels,
  maxImagePixels,
  maxLoginSeconds,
  maxModReasonLength,
  maxMutes,
  maxPasskeyNameLength,
  maxApplicationLength,
  maxPasskeysPerAccount,
  maxPasswordLength,
  maxPushDevices,
  maxReplyDepth,
  maxReportReasonLength,
  maxSearchLength,
  maxSearchTerms,
  maxUsernameLength,
  minApplicationLength,
  minLoginSeconds,
  minPasswordLength,
  minUsernameLength,
  newAccountLinkDelaySeconds,
} from './product.ts';

/** German messages for every error code the API answers (docs/API.md "Errors"); the numbers come from lib/product.ts. */
export const messages = {
  'api.not_found': 'Diese Adresse gibt es nicht.',
  'api.method_not_allowed': 'Diese Methode ist hier nicht erlaubt.',
  'auth.required': 'Bitte melde dich an.',
  'auth.bad_credentials': 'Benutzername oder Passwort ist falsch.',
  'auth.bad_password': 'Das Passwort ist falsch.',
  'auth.invalid': 'Bitte prüfe die markierten Felder.',
  'auth.banned': 'Dieses Konto ist gesperrt.',
  'auth.pending': 'Dein Konto wartet noch auf die Freischaltung durch die Moderation.',
  'auth.rejected': 'Dein Antrag auf ein Konto wurde abgelehnt.',
  'auth.invite_required': 'Neue Konten gibt es hier nur mit einer Einladung.',
  'auth.registration_closed': 'Die Registrierung ist zurzeit geschlossen.',
  'invite.invalid': `Diese Einladung gilt nicht (mehr): Sie ist ungültig, abgelaufen, schon benutzt oder zurückgezogen. Eine Einladung von einem Mitglied gilt ${inviteLifetimeSeconds / 86_400} Tage.`,
  'invite.not_found': 'Diese Einladung gibt es nicht.',
  'invite.not_open': 'Diese Einladung ist schon benutzt, abgelaufen oder zurückgezogen.',
  'application.not_found': 'Zu diesem Konto gibt es keinen offenen Antrag.',
  'pow.invalid': 'Die Rechenaufgabe fehlt, ist abgelaufen oder falsch gelöst. Bitte versuche es noch einmal.',
  'trust.required': 'Das können neue Konten noch nicht.',
  'csrf.bad_origin': 'Anfrage von fremder Herkunft abgelehnt.',
  'tor.blocked': 'Beiträge über das Tor-Netzwerk sind nicht möglich.',
  'entry.not_found': 'Diesen Beitrag gibt es nicht.',
  'entry.empty': 'Der Beitrag ist leer: bitte Text oder ein Bild angeben.',
  'entry.too_long': `Der Beitrag ist länger als ${maxContentLength} Zeichen.`,
  'entry.not_author': 'Nur die Autorin oder der Autor darf diesen Beitrag ändern.',
  'entry.bump_cooldown': 'Dieser Beitrag kann noch nicht wieder hochgeholt werden.',
  'entry.duplicate': 'Diesen Text hast du eben schon gepostet: bitte nicht doppelt.',
  'entry.too_deep': `Diese Antwort wäre zu tief verschachtelt: höchstens ${maxReplyDepth} Ebenen unter dem ersten Beitrag.`,
  'vote.invalid_mode': 'Ungültige Stimme: erlaubt sind „yes“ und „no“.',
  'report.too_long': `Die Begründung ist länger als ${maxReportReasonLength} Zeichen.`,
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
  'rate.new_account': `Neue Konten können in den ersten ${newAccountLinkDelaySeconds / 60} Minuten keine Links oder Bilder posten.`,
  'auth.busy': 'Der Server ist gerade ausgelastet. Bitte versuche es in ein paar Sekunden noch einmal.',
  'passkey.failed':
    'Die Anmeldung mit dem Passkey hat nicht geklappt. Bitte versuche es noch einmal oder melde dich mit deinem Passwort an.',
  'passkey.registration_failed': 'Der Passkey konnte nicht eingerichtet werden. Bitte versuche es noch einmal.',
  'passkey.exists': 'Dieser Passkey ist schon eingerichtet.',
  'passkey.limit': `Du kannst höchstens ${maxPasskeysPerAccount} Passkeys einrichten.`,
  'passkey.not_found': 'Diesen Passkey gibt es nicht.',
  'auth.bad_passkey': 'Der Passkey wurde nicht bestätigt.',
  'push.off': 'Push-Benachrichtigungen sind auf diesem Board ausgeschaltet.',
  'recovery.invalid': 'Benutzername oder Wiederherstellungscode ist falsch.',
  'search.busy': 'Die Suche ist gerade ausgelastet. Bitte versuche es in ein paar Sekunden noch einmal.',
  internal: 'Interner Fehler. Bitte versuche es später noch einmal.',
  'server.disk_full': 'Der Speicher des Servers ist voll. Bitte versuche es später noch einmal.',
} as const satisfies Record<string, string>;

/** An error code the API answers: a typo in a thrown ApiError is a type error, not "Interner Fehler" at run time. */
export type ErrorCode = keyof typeof messages;

/** "8 MiB", "1,5 MiB", "512 KiB": rounded down, so a message never promises more than the limit lets through. */
function sizeText(bytes: number): string {
  const [amount, unit] = bytes >= 1024 ** 2 ? [bytes / 1024 ** 2, 'MiB'] : [bytes / 1024, 'KiB'];
  return `${new Intl.NumberFormat('de', { maximumFractionDigits: 1, roundingMode: 'floor' }).format(amount)} ${unit}`;
}

/**
 * The messages of upload.too_large, each naming the limit that refused the file; the size is a
 * setting (BOARD_MAX_UPLOAD), hence a function.
 */
export const uploadLimitMessages = {
  size: (maxBytes: number) => `Die Datei ist zu groß: erlaubt sind höchstens ${sizeText(maxBytes)}.`,
  pixels: `Das Bild ist zu groß: erlaubt sind höchstens ${maxImagePixels / 1e6} Megapixel.`,
  gif: `Das animierte GIF ist zu lang: erlaubt sind höchstens ${maxGifFrames} Einzelbilder mit zusammen ${maxGifPixels / 1e6} Megapixeln.`,
} as const;

export const fieldMessages = {
  username: `Der Name muss ${minUsernameLength} bis ${maxUsernameLength} Zeichen lang sein: Buchstaben, Ziffern, Punkt, Unterstrich, Leerzeichen und Bindestrich.`,
  passwordShort: `Das Passwort muss mindestens ${minPasswordLength} Zeichen lang sein.`,
  passwordMismatch: 'Die Passwörter stimmen nicht überein.',
  required: 'Dieses Feld fehlt.',
  notInteger: 'Hier wird eine ganze Zahl erwartet.',
  outOfRange: 'Dieser Wert liegt außerhalb des erlaubten Bereichs.',
  pidList: `Erwartet werden 1 bis ${maxBulkPids} Beitragsnummern, durch Kommas getrennt.`,
  passwordLong: `Das Passwort darf höchstens ${maxPasswordLength} Zeichen lang sein.`,
  loginTimeout: `Die Dauer muss eine ganze Zahl von Sekunden zwischen ${minLoginSeconds} und ${maxLoginSeconds} sein.`,
  imageRequired: 'Bitte ein Bild auswählen.',
  modReason: `Bitte einen Grund mit 1 bis ${maxModReasonLength} Zeichen angeben.`,
  modReasonLong: `Der Grund darf höchstens ${maxModReasonLength} Zeichen lang sein.`,
  banDays: `Die Dauer muss eine ganze Zahl von 1 bis ${maxBanDays} Tagen sein; leer lassen für dauerhaft.`,
  purgeFlag: 'Erlaubt ist nur „1“ (alle Beiträge entfernen) oder nichts.',
  muteSelf: 'Du kannst dich nicht selbst stummschalten.',
  muteLimit: `Du kannst höchstens ${maxMutes} Konten stummschalten.`,
  searchQuery: `Bitte einen Suchbegriff mit 1 bis ${maxSearchLength} Zeichen eingeben.`,
  searchTerms: `Bitte höchstens ${maxSearchTerms} Suchwörter eingeben; eine Wortfolge in Anführungszeichen zählt als eines.`,
  altLong: `Die Bildbeschreibung darf höchstens ${maxAltLength} Zeichen lang sein.`,
  application: `Bitte beantworte die Frage mit ${minApplicationLength} bis ${maxApplicationLength} Zeichen.`,
  altcha: 'Bitte die Rechenaufgabe lösen lassen (GET /api/auth/challenge, Feld altcha).',
  registrationMode: 'Erlaubt sind „open“, „approval“, „invite“ und „closed“.',
  instance: 'Das ist keine Instanz: ein Servername wie social.example, mit Port, wenn er nicht der übliche ist.',
  instanceAction: 'Erlaubt sind „allow“, „block“ und „unblock“.',
  trustLevel: 'Erlaubt sind die Stufen 0 und 1.',
  treeFlag: 'Erlaubt ist nur „1“ (auch die eingeladenen Konten sperren) oder nichts.',
  followLimit: `Du kannst höchstens ${maxFollows} Beiträgen folgen: entfolge zuerst einem anderen.`,
  followFlag: 'Erlaubt ist „1“ (folgen) oder „0“ (nicht folgen).',
  pushEndpoint: `Die Push-Adresse muss eine erlaubte https-Adresse mit höchstens ${maxEndpointLength} Zeichen sein.`,
  pushKey: 'Der Schlüssel des Browsers fehlt oder ist ungültig.',
  pushLimit: `Höchstens ${maxPushDevices} Geräte können Push-Nachrichten bekommen: beende zuerst eines in den Einstellungen.`,
  passkeyName: `Bitte einen Namen mit 1 bis ${maxPasskeyNameLength} Zeichen angeben.`,
  passkeyCredential: 'Die Antwort des Passkeys fehlt oder ist beschädigt.',
} as const;

/** More specific messages for input.invalid when the request itself, not one field, is at fault. */
export const requestMessages = {
  badRequest: 'Ungültige Anfrage.',
  aborted: 'Die Anfrage wurde abgebrochen.',
  badFormData: 'Ungültige Formulardaten.',
} as const;
