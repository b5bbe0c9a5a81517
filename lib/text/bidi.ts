/** Bidi embedding, override and isolate controls: U+202A–202E and U+2066–2069. */
const bidiControls = /[\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text without bidi controls (entry text, report reasons, names). Why: a stored U+202E turns the
 * rest of a line around, so a link or a name can show as something else than it is
 * ("\u202Eelpmaxe.live" reads as "evil.example").
 */
export function stripBidiControls(text: string): string {
  return text.replace(bidiControls, '');
}
