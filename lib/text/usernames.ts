import unhomoglyph from 'unhomoglyph';
import { stripBidiControls } from './bidi.ts';

const defaultIgnorable = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The confusable skeleton of a username (Unicode TR39 §4) of the lower-cased name, lower-cased
 * again since names are unique in any letter case: "alice", "аlice" (Cyrillic а) and "ALlCE" share
 * one. Why: a name that renders like someone else's lets its holder speak in their name. Never
 * shown.
 */
export function nameSkeleton(name: string): string {
  const decomposed = name.toLowerCase().normalize('NFD').replace(defaultIgnorable, '');
  return unhomoglyph(decomposed).normalize('NFD').toLowerCase();
}

export function normaliseUsername(raw: string): string {
  return stripBidiControls(raw.normalize('NFC')).trim().replace(/\s+/gu, ' ');
}

/** The key names are unique by: SQLite's NOCASE folds ASCII only, so we fold in JS and store it. */
export function usernameKey(name: string): string {
  return normaliseUsername(name).toLowerCase();
}
