import unhomoglyph from 'unhomoglyph';

const defaultIgnorable = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The confusable skeleton of a username (Unicode TR39 §4: NFD, default-ignorable code points
 * removed, each character replaced by its prototype from Unicode's confusables.txt, NFD again),
 * taken of the lower-cased name and lower-cased again, because names are unique in any letter
 * case. "alice", "аlice" (Cyrillic а) and "ALlCE" share one. Why: a name that renders like
 * someone else's lets its holder speak in their name. For comparing only, never for display.
 */
export function nameSkeleton(name: string): string {
  const decomposed = name.toLowerCase().normalize('NFD').replace(defaultIgnorable, '');
  return unhomoglyph(decomposed).normalize('NFD').toLowerCase();
}
