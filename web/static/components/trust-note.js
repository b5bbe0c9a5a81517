// What a new account may not do yet, said in the composer before anyone types (docs/API.md
// "Trust levels"): level 0 posts few links and images; the note says what unlocks more.
import { h } from '../dom.js';
import { levelZeroRule } from '../rules.js';
import { me } from '../session.js';

/** The note for the composer; null for an account at level 1 (or nobody logged in). */
export function trustNote() {
  const user = me();
  if (user?.trust_level !== 0) return null;
  return h('p', { class: 'muted small trust-note' }, levelZeroRule);
}
